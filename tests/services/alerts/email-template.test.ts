/**
 * The wishlist alert email (docs/decisions/049-alert-email-templates.md): what a shopper reads in each language,
 * prices in the shop's currency as the language writes them, the links the sender signed, nothing that runs
 * or fetches, and a plain text part. The expected words and prices are written out, not computed with Intl:
 * French and German put a no-break space (U+00A0) before the currency sign, and French groups thousands with a
 * narrow no-break space (U+202F).
 */
import { JSDOM } from "jsdom";
import { describe, expect, it } from "vitest";
import { ALERT_EMAIL_LANGUAGES, ALERT_EMAIL_MESSAGES } from "~/services/alerts/email-messages";
import { currencyDigits } from "~/lib/money";
import {
  createAlertEmailRenderer,
  renderAlertEmail,
  resolveAlertEmailLocale,
  type AlertEmailInput,
  type AlertEmailItem,
  type AlertKind,
} from "~/services/alerts/email-template";

const NBSP = "\u00a0";
const NNBSP = "\u202f";

const SHOP_URL = "https://maison-ada.example/";
const UNSUBSCRIBE_URL = "https://app.example/apps/service/alerts/unsubscribe?c=42&sig=u-5ig";
const productUrl = (n: number) => `https://app.example/apps/service/alerts/click?a=${n}&sig=c-5ig-${n}`;
const imageUrl = (n: number) => `https://cdn.example/products/${n}.jpg`;

function item(kind: AlertKind, overrides: Partial<AlertEmailItem> = {}): AlertEmailItem {
  return {
    kind,
    title: "Wool scarf",
    variantTitle: "Red / M",
    imageUrl: imageUrl(1),
    productUrl: productUrl(1),
    currency: "EUR",
    oldPriceMinor: kind === "price_dropped" ? 1250 : null,
    newPriceMinor: kind === "price_dropped" ? 999 : 1250,
    quantity: kind === "low_stock" ? 3 : null,
    ...overrides,
  };
}

function input(locale: string, items: AlertEmailItem[], overrides: Partial<AlertEmailInput> = {}): AlertEmailInput {
  return {
    locale,
    shopName: "Maison Ada",
    shopUrl: SHOP_URL,
    customerFirstName: "Grace",
    items,
    unsubscribeUrl: UNSUBSCRIBE_URL,
    ...overrides,
  };
}

/** The email as a client shows it: the parsed document, its visible text in one line, its links and images. */
async function open(emailInput: AlertEmailInput) {
  const email = await renderAlertEmail(emailInput);
  const { document } = new JSDOM(email.html).window;
  // Spaces as a browser collapses them (ASCII white space and line breaks; no-break spaces are kept).
  for (const lineBreak of document.querySelectorAll("br")) lineBreak.replaceWith(" ");
  const words = (element: Element) => element.textContent!.replace(/[ \t\r\n\f]+/g, " ").trim();
  const paragraphs = [...document.querySelectorAll("p, h1")].map(words);
  return {
    ...email,
    document,
    paragraphs,
    hrefs: [...document.querySelectorAll("a")].map((link) => link.getAttribute("href")),
    buttons: [...document.querySelectorAll("a")]
      .filter((link) => !link.querySelector("img") && link.getAttribute("href") !== UNSUBSCRIBE_URL)
      .filter((link) => link.getAttribute("href") !== SHOP_URL)
      .map((link) => ({ href: link.getAttribute("href"), text: words(link) })),
    images: [...document.querySelectorAll("img")].map((image) => ({
      src: image.getAttribute("src"),
      alt: image.getAttribute("alt"),
    })),
  };
}

// GIVEN one item of each kind (EUR; 12.50, or 12.50 down to 9.99) in each language, THEN these words and prices.
const EXPECTED: Record<string, Record<AlertKind, { subject: string; status: string; price: string }>> = {
  en: {
    back_in_stock: { subject: "Back in stock: Wool scarf", status: "Back in stock", price: "Price: €12.50" },
    price_dropped: { subject: "Price drop: Wool scarf", status: "Price drop", price: "Now €9.99, was €12.50" },
    low_stock: { subject: "Almost gone: Wool scarf", status: "Only 3 left", price: "Price: €12.50" },
    reminder: {
      subject: "Still thinking about Wool scarf?",
      status: "Saved to your wishlist",
      price: "Price: €12.50",
    },
  },
  fr: {
    back_in_stock: {
      subject: `De retour en stock${NBSP}: Wool scarf`,
      status: "De retour en stock",
      price: `Prix${NBSP}: 12,50${NBSP}€`,
    },
    price_dropped: {
      subject: `Baisse de prix${NBSP}: Wool scarf`,
      status: "Baisse de prix",
      price: `Maintenant 9,99${NBSP}€ au lieu de 12,50${NBSP}€`,
    },
    low_stock: {
      subject: `Bientôt épuisé${NBSP}: Wool scarf`,
      status: "Plus que 3 exemplaires disponibles",
      price: `Prix${NBSP}: 12,50${NBSP}€`,
    },
    reminder: {
      subject: `Toujours intéressé(e) par Wool scarf${NBSP}?`,
      status: "Dans votre liste d’envies",
      price: `Prix${NBSP}: 12,50${NBSP}€`,
    },
  },
  de: {
    back_in_stock: {
      subject: "Wieder auf Lager: Wool scarf",
      status: "Wieder auf Lager",
      price: `Preis: 12,50${NBSP}€`,
    },
    price_dropped: {
      subject: "Preis gesenkt: Wool scarf",
      status: "Preis gesenkt",
      price: `Jetzt 9,99${NBSP}€ statt 12,50${NBSP}€`,
    },
    low_stock: {
      subject: "Fast ausverkauft: Wool scarf",
      status: "Nur noch 3 Stück verfügbar",
      price: `Preis: 12,50${NBSP}€`,
    },
    reminder: {
      subject: "Noch interessiert an Wool scarf?",
      status: "Auf Ihrer Wunschliste",
      price: `Preis: 12,50${NBSP}€`,
    },
  },
  es: {
    back_in_stock: {
      subject: "De nuevo disponible: Wool scarf",
      status: "De nuevo disponible",
      price: `Precio: 12,50${NBSP}€`,
    },
    price_dropped: {
      subject: "Bajada de precio: Wool scarf",
      status: "Bajada de precio",
      price: `Ahora 9,99${NBSP}€, antes 12,50${NBSP}€`,
    },
    low_stock: {
      subject: "Últimas unidades: Wool scarf",
      status: "Solo quedan 3 unidades",
      price: `Precio: 12,50${NBSP}€`,
    },
    reminder: {
      subject: "¿Sigue pensando en Wool scarf?",
      status: "En su lista de deseos",
      price: `Precio: 12,50${NBSP}€`,
    },
  },
};

const CASES = Object.entries(EXPECTED).flatMap(([locale, kinds]) =>
  Object.entries(kinds).map(([kind, expected]) => ({ locale, kind: kind as AlertKind, ...expected })),
);

describe("one alert, in each language", () => {
  it.each(CASES)("$kind in $locale: subject, what changed, price, links", async (expected) => {
    const email = await open(input(expected.locale, [item(expected.kind)]));

    expect(email.subject).toBe(expected.subject);
    expect(email.document.documentElement.getAttribute("lang")).toBe(expected.locale);
    expect(email.document.title).toBe(expected.subject);
    expect(email.paragraphs).toEqual(
      expect.arrayContaining(["Wool scarf", "Red / M", expected.status, expected.price]),
    );
    expect(email.document.querySelector(`a[href="${SHOP_URL}"]`)!.textContent).toBe("Maison Ada");
    expect(email.images).toEqual([{ src: imageUrl(1), alt: "Wool scarf" }]);
    // The image and the button lead to the signed link as given; the footer has the unsubscribe link.
    expect(email.document.querySelector("img")!.closest("a")!.getAttribute("href")).toBe(productUrl(1));
    expect(email.buttons).toEqual([
      { href: productUrl(1), text: ALERT_EMAIL_MESSAGES[expected.locale as "en"]["button.viewProduct"] },
    ]);
    expect(email.hrefs).toContain(UNSUBSCRIBE_URL);
  });

  it("strikes the old price through and sets the new one in bold", async () => {
    const email = await open(input("en", [item("price_dropped")]));
    expect([...email.document.querySelectorAll("s")].map((node) => node.textContent)).toEqual(["€12.50"]);
    expect([...email.document.querySelectorAll("strong")].map((node) => node.textContent)).toEqual(["€9.99"]);
  });

  it("reads naturally in each language around the item", async () => {
    const texts = await Promise.all(
      ["en", "fr", "de", "es"].map(async (locale) => (await open(input(locale, [item("back_in_stock")]))).paragraphs),
    );
    expect(texts[0]).toEqual(
      expect.arrayContaining([
        "It’s back in stock",
        "Hello Grace,",
        "An item you saved to your wishlist is available again.",
        "See you soon, The Maison Ada team",
        "You’re receiving this because you saved this item to your wishlist at Maison Ada.",
        "Unsubscribe from wishlist alerts",
      ]),
    );
    expect(texts[1]).toEqual(
      expect.arrayContaining([
        "Bonjour Grace,",
        "Vous recevez cet e-mail parce que vous avez ajouté cet article à votre liste d’envies sur Maison Ada.",
        "Ne plus recevoir les alertes de ma liste d’envies",
      ]),
    );
    expect(texts[2]).toEqual(
      expect.arrayContaining([
        "Hallo Grace,",
        "Viele Grüße Ihr Team von Maison Ada",
        "Sie erhalten diese E-Mail, weil Sie diesen Artikel bei Maison Ada auf Ihre Wunschliste gesetzt haben.",
        "Benachrichtigungen zur Wunschliste abbestellen",
      ]),
    );
    expect(texts[3]).toEqual(
      expect.arrayContaining([
        "Hola, Grace:",
        "Recibe este correo porque guardó este artículo en su lista de deseos de Maison Ada.",
        "Darse de baja de las alertas de la lista de deseos",
      ]),
    );
  });

  it("greets a shopper without a first name, and hides a variant that is none", async () => {
    const email = await open(
      input("de", [item("back_in_stock", { variantTitle: "Default Title" })], { customerFirstName: null }),
    );
    expect(email.paragraphs).toContain("Guten Tag,");
    expect(email.paragraphs).not.toContain("Default Title");
    const noVariant = await open(
      input("en", [item("back_in_stock", { variantTitle: null })], { customerFirstName: " " }),
    );
    expect(noVariant.paragraphs.filter((text) => text === "Hello,")).toHaveLength(1);
    expect(noVariant.paragraphs).not.toContain("Red / M");
  });

  it.each([
    ["en", 1, "Only 1 left"],
    ["fr", 1, "Dernier exemplaire disponible"],
    ["de", 1, "Nur noch 1 Stück verfügbar"],
    ["es", 1, "Solo queda 1 unidad"],
    ["es", 2, "Solo quedan 2 unidades"],
    ["en", null, "Only a few left"],
    ["fr", null, "Plus que quelques exemplaires disponibles"],
  ])("low stock in %s with %s left says %s", async (locale, quantity, expected) => {
    const email = await open(input(locale, [item("low_stock", { quantity })]));
    expect(email.paragraphs).toContain(expected);
  });
});

describe("a digest", () => {
  const digest = [
    item("back_in_stock", { title: "Wool scarf", productUrl: productUrl(1), imageUrl: imageUrl(1) }),
    item("price_dropped", {
      title: "Linen shirt",
      productUrl: productUrl(2),
      imageUrl: imageUrl(2),
      variantTitle: null,
    }),
    item("low_stock", { title: "Leather boots", productUrl: productUrl(3), imageUrl: null, quantity: 2 }),
  ];

  it.each([
    [
      "en",
      "3 updates on your wishlist",
      "News from your wishlist",
      "Here is what changed for 3 items on your wishlist.",
    ],
    ["fr", "3 nouveautés dans votre liste d’envies", "Du nouveau dans votre liste d’envies", null],
    ["de", "3 Neuigkeiten zu Ihrer Wunschliste", "Neues von Ihrer Wunschliste", null],
    ["es", "3 novedades en su lista de deseos", "Novedades de su lista de deseos", null],
  ])(
    "in %s: one subject for three items, each with its change and its button",
    async (locale, subject, heading, intro) => {
      const email = await open(input(locale, digest));
      expect(email.subject).toBe(subject);
      expect(email.paragraphs).toContain(heading);
      if (intro) expect(email.paragraphs).toContain(intro);
      expect(email.paragraphs).toEqual(expect.arrayContaining(["Wool scarf", "Linen shirt", "Leather boots"]));
      expect(email.buttons.map((button) => button.href)).toEqual([productUrl(1), productUrl(2), productUrl(3)]);
      expect(email.images).toEqual([
        { src: imageUrl(1), alt: "Wool scarf" },
        { src: imageUrl(2), alt: "Linen shirt" },
      ]);
    },
  );

  it("tells each item's own change, and explains the email in the plural", async () => {
    const email = await open(input("en", digest));
    expect(email.paragraphs).toEqual(
      expect.arrayContaining([
        "Back in stock",
        "Price drop",
        "Now €9.99, was €12.50",
        "Only 2 left",
        "You’re receiving this because you saved these items to your wishlist at Maison Ada.",
      ]),
    );
  });

  it.each([
    [
      "en",
      "2 items are waiting on your wishlist",
      "Still on your wishlist",
      "You saved these 2 items to your wishlist a while ago. Here they are again.",
    ],
    [
      "fr",
      "2 articles vous attendent dans votre liste d’envies",
      "Toujours dans votre liste d’envies",
      "Vous avez ajouté ces 2 articles à votre liste d’envies il y a quelque temps. Les voici.",
    ],
    [
      "de",
      "2 Artikel warten auf Ihrer Wunschliste",
      "Noch auf Ihrer Wunschliste",
      "Sie haben vor einiger Zeit diese 2 Artikel auf Ihre Wunschliste gesetzt. Hier sind sie noch einmal.",
    ],
    [
      "es",
      "2 artículos le esperan en su lista de deseos",
      "Sigue en su lista de deseos",
      "Hace un tiempo guardó estos 2 artículos en su lista de deseos. Aquí los tiene de nuevo.",
    ],
  ])(
    "of reminders only, in %s: says the items wait, not that they changed",
    async (locale, subject, heading, intro) => {
      const reminders = [
        item("reminder", { title: "Wool scarf", productUrl: productUrl(1) }),
        item("reminder", { title: "Linen shirt", productUrl: productUrl(2), newPriceMinor: null }),
      ];
      const email = await open(input(locale, reminders));
      expect(email.subject).toBe(subject);
      expect(email.paragraphs).toEqual(expect.arrayContaining([heading, intro, "Wool scarf", "Linen shirt"]));
      expect(email.buttons.map((button) => button.href)).toEqual([productUrl(1), productUrl(2)]);
      // A reminder among changes is a digest like any other.
      const mixed = await open(input(locale, [...reminders, digest[0]!]));
      expect(mixed.subject).toBe(
        {
          en: "3 updates on your wishlist",
          fr: "3 nouveautés dans votre liste d’envies",
          de: "3 Neuigkeiten zu Ihrer Wunschliste",
          es: "3 novedades en su lista de deseos",
        }[locale],
      );
    },
  );
});

describe("prices in the shop's currency", () => {
  it.each([
    ["en", "JPY", 1500, "Price: ¥1,500"],
    ["de", "JPY", 1500, `Preis: 1.500${NBSP}¥`],
    ["en", "EUR", 123450, "Price: €1,234.50"],
    ["de", "EUR", 123450, `Preis: 1.234,50${NBSP}€`],
    ["fr", "EUR", 123450, `Prix${NBSP}: 1${NNBSP}234,50${NBSP}€`],
    ["en", "KWD", 1250, `Price: KWD${NBSP}1.250`],
    ["en", "USD", 5, "Price: $0.05"],
  ])("in %s, %s %i minor units read %s", async (locale, currency, minor, expected) => {
    const email = await open(input(locale, [item("back_in_stock", { currency, newPriceMinor: minor })]));
    expect(email.paragraphs).toContain(expected);
  });

  it("takes each currency's minor units from Intl", () => {
    expect([currencyDigits("EUR"), currencyDigits("JPY"), currencyDigits("KWD")]).toEqual([2, 0, 3]);
  });

  it("shows no price line when the price is unknown", async () => {
    const email = await open(input("en", [item("back_in_stock", { newPriceMinor: null })]));
    expect(email.paragraphs.filter((text) => text.startsWith("Price"))).toEqual([]);
  });

  it("refuses a currency code that is not one", async () => {
    await expect(renderAlertEmail(input("en", [item("back_in_stock", { currency: "EURO" })]))).rejects.toThrow(
      RangeError,
    );
  });
});

describe("the language of a storefront locale", () => {
  it.each([
    ["pt-BR", "en", "en"],
    ["fr-CA", "fr", "fr-CA"],
    ["fr_CA", "fr", "fr-CA"],
    ["de-CH", "de", "de-CH"],
    ["es-MX", "es", "es-MX"],
    ["ca", "es", "es"],
    ["ja", "en", "en"],
    ["%%%", "en", "en"],
    ["", "en", "en"],
  ])("%s is written in %s, numbers as %s writes them", (locale, language, formatLocale) => {
    expect(resolveAlertEmailLocale(locale)).toEqual({ language, formatLocale });
  });

  it("writes pt-BR in English, with English prices", async () => {
    const email = await open(input("pt-BR", [item("price_dropped")]));
    expect(email.subject).toBe("Price drop: Wool scarf");
    expect(email.document.documentElement.getAttribute("lang")).toBe("en");
    expect(email.paragraphs).toContain("Now €9.99, was €12.50");
  });

  it("writes fr-CA in French, with Canadian prices", async () => {
    const email = await open(input("fr-CA", [item("back_in_stock", { currency: "CAD" })]));
    expect(email.subject).toBe(`De retour en stock${NBSP}: Wool scarf`);
    expect(email.document.documentElement.getAttribute("lang")).toBe("fr");
    expect(email.paragraphs).toContain(`Prix${NBSP}: 12,50${NBSP}$`);
  });
});

describe("values are text, never markup", () => {
  const hostile = `<script>alert("x")</script> "&' <b>bold</b>`;

  it("shows a title, a variant, a first name and a shop name with markup in them as the characters they are", async () => {
    const email = await open(
      input("en", [item("back_in_stock", { title: hostile, variantTitle: `<i>${hostile}</i>` }), item("low_stock")], {
        customerFirstName: `<img src="https://evil.example/p.gif">`,
        shopName: `Ada & <Co> "Ltd"`,
      }),
    );
    expect(email.html).not.toContain("<script");
    expect(email.html).not.toContain("<b>");
    expect(email.html).not.toContain('evil.example/p.gif"');
    expect(email.document.querySelectorAll("script, b, i")).toHaveLength(0);
    expect(email.paragraphs).toEqual(
      expect.arrayContaining([
        hostile,
        `<i>${hostile}</i>`,
        `Hello <img src="https://evil.example/p.gif">,`,
        `See you soon, The Ada & <Co> "Ltd" team`,
      ]),
    );
    expect(email.images).toEqual([
      { src: imageUrl(1), alt: hostile },
      { src: imageUrl(1), alt: "Wool scarf" },
    ]);
    expect(email.text).toContain(hostile);
  });

  it("keeps a link's quotes and ampersands inside its attribute", async () => {
    const tricky = `https://app.example/click?a=1&b="><script>x</script>`;
    const email = await open(input("en", [item("back_in_stock", { productUrl: tricky })], { unsubscribeUrl: tricky }));
    expect(email.document.querySelectorAll("script")).toHaveLength(0);
    expect(email.hrefs.filter((href) => href === tricky)).toHaveLength(3); // image, button, unsubscribe
  });

  it("keeps the subject to one line, whatever the title holds", async () => {
    const email = await renderAlertEmail(
      input("en", [item("back_in_stock", { title: "Wool\r\nBcc: x@evil.example  scarf" })]),
    );
    expect(email.subject).toBe("Back in stock: Wool Bcc: x@evil.example scarf");
  });
});

describe("a robust, private email", () => {
  it("loads no image but the products', no font, no style sheet and no script", async () => {
    const email = await open(input("fr", [item("back_in_stock"), item("price_dropped", { imageUrl: null })]));
    expect(email.images.map((image) => image.src)).toEqual([imageUrl(1)]);
    const withoutImages = await open(input("fr", [item("back_in_stock", { imageUrl: null })]));
    expect(withoutImages.images).toEqual([]);
    for (const { document, html } of [email, withoutImages]) {
      expect(document.querySelectorAll("link, style, script, iframe, object, [background]")).toHaveLength(0);
      expect(html).not.toMatch(/@import|@font-face|url\(/i);
    }
  });

  it("styles inline, in tables of 600 pixels at most, with a hidden preview text first in the body", async () => {
    const email = await open(input("es", [item("low_stock")]));
    expect(email.document.querySelectorAll("[class]")).toHaveLength(0);
    const container = email.document.querySelector("body table table")!;
    expect(container.getAttribute("style")).toContain("max-width:600px");
    expect(container.getAttribute("role")).toBe("presentation");
    const preview = email.document.body.querySelector("[data-skip-in-text]")!;
    expect(preview.getAttribute("style")).toContain("display:none");
    expect(preview.textContent).toMatch(/^Un artículo que guardó en su lista de deseos está a punto de agotarse\./);
  });

  it("writes a plain text part with the words and every link, and no markup", async () => {
    const email = await renderAlertEmail(
      input("en", [item("price_dropped"), item("low_stock", { productUrl: productUrl(2) })]),
    );
    for (const expected of [
      "News from your wishlist",
      "Wool scarf",
      "Now €9.99, was €12.50",
      "Only 3 left",
      `View product ${productUrl(1)}`,
      `View product ${productUrl(2)}`,
      `Unsubscribe from wishlist alerts ${UNSUBSCRIBE_URL}`,
      `Maison Ada ${SHOP_URL}`,
    ]) {
      expect(email.text).toContain(expected);
    }
    expect(email.text).not.toMatch(/<[a-z!/]/i);
    // Each product link once, at its button: the image's link is left out of the text.
    expect(email.text.split(productUrl(1))).toHaveLength(2);
  });

  it("refuses an email with no item", async () => {
    await expect(renderAlertEmail(input("en", []))).rejects.toThrow(/at least one item/);
  });
});

describe("the email's catalogues", () => {
  const placeholders = (message: string | { one: string; other: string }): string[] =>
    typeof message === "string"
      ? [...message.matchAll(/\{(\w+)\}/g)].map((match) => match[1]!).sort()
      : [...new Set(Object.values(message).flatMap(placeholders))].filter((name) => name !== "count").sort();

  it.each(ALERT_EMAIL_LANGUAGES.filter((language) => language !== "en"))(
    "%s says everything English says, with the same placeholders, in its own words",
    (language) => {
      const english = ALERT_EMAIL_MESSAGES.en;
      const catalogue = ALERT_EMAIL_MESSAGES[language];
      const keys = Object.keys(english) as Array<keyof typeof english>;
      expect(Object.keys(catalogue).sort()).toEqual([...keys].sort());
      const wrong = keys.filter((key) => placeholders(catalogue[key]).join() !== placeholders(english[key]).join());
      expect(wrong).toEqual([]);
      const same = keys.filter((key) => JSON.stringify(catalogue[key]) === JSON.stringify(english[key]));
      expect(same).toEqual([]);
    },
  );
});

describe("the sender's renderer: each distinct email rendered once, the recipient put in", () => {
  const names = [
    "Grace",
    null,
    " ",
    "  Ada \n Lovelace\t",
    "Zoë\u200bMarie",
    `O'Brien & <Sons> "Ltd" $& $1 $'`,
    "名前",
    "A".repeat(300),
  ];
  const links = [
    (n: number) => productUrl(n),
    (n: number) => `https://app.example/click?a=${n}&b="><script>x</script>`,
    (n: number) => `https://app.example/alerts/click/${"x".repeat(400 + n)}`,
  ];

  it("gives what a whole render gives, byte for byte, for every language, name and link", async () => {
    const renderer = createAlertEmailRenderer();
    const shapes = [
      [item("back_in_stock")],
      [item("price_dropped"), item("low_stock", { imageUrl: null }), item("back_in_stock", { variantTitle: null })],
    ];
    for (const locale of ["en", "fr-CA", "de", "es", "pt-BR"]) {
      for (const items of shapes) {
        for (const [index, name] of names.entries()) {
          const link = links[index % links.length]!;
          const whole = input(
            locale,
            items.map((each, n) => ({ ...each, productUrl: link(n) })),
            {
              customerFirstName: name,
              unsubscribeUrl: `${link(99)}&u=${index}`,
            },
          );
          expect(await renderer.render(whole)).toEqual(await renderAlertEmail(whole));
        }
      }
    }
    // Per language and items, one render for the named and one for the unnamed ("", " " and null).
    expect(renderer.wholeRenders).toBe(5 * 2 * 2);
  });

  it("renders a different email when anything but the recipient differs, and a slot in a title stays text", async () => {
    const { render } = createAlertEmailRenderer();
    const first = await render(input("en", [item("back_in_stock")]));
    const otherTitle = await render(input("en", [item("back_in_stock", { title: "Linen shirt" })]));
    const otherPrice = await render(input("en", [item("back_in_stock", { newPriceMinor: 1300 })]));
    expect(otherTitle.html).toContain("Linen shirt");
    expect(otherTitle.html).not.toContain("Wool scarf");
    expect(otherPrice.text).toContain("€13.00");
    expect(first.text).not.toContain("€13.00");
    // A merchant's title that looks like a slot is shown as written: the renderer's slots are its own secret.
    const lookalike = input("en", [item("back_in_stock", { title: "wlslot0000n z" })]);
    expect(await render(lookalike)).toEqual(await renderAlertEmail(lookalike));
  });

  it("keeps only its last shapes, and renders again one it let go", async () => {
    const renderer = createAlertEmailRenderer({ maxShapes: 2 });
    const titles = ["One", "Two", "One", "Three", "One", "Two"];
    const emails = [];
    for (const title of titles) emails.push(await renderer.render(input("en", [item("back_in_stock", { title })])));
    expect(emails.map((email) => email.subject)).toEqual(titles.map((title) => `Back in stock: ${title}`));
    expect(emails[2]).toEqual(emails[0]);
    // One, Two, (One kept), Three lets Two go, (One kept), Two again.
    expect(renderer.wholeRenders).toBe(4);
  });
});
