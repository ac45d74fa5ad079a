/**
 * The words of the wishlist alert emails in the storefront's four languages, kept apart from the template so a
 * translator reads sentences, not markup (docs/decisions/049-alert-email-templates.md). English is the source:
 * the others are declared with its type, so a missing, extra or misspelt key is a compile error. `{name}` is a
 * value filled in at render; a plural message has one and other forms (app/i18n/message-catalogue.ts). The shopper is
 * addressed formally (vous, Sie, usted): the email comes from a shop, not a friend.
 */
export const ALERT_EMAIL_LANGUAGES = ["en", "fr", "de", "es"] as const;
export type AlertEmailLanguage = (typeof ALERT_EMAIL_LANGUAGES)[number];

const en = {
  "subject.back_in_stock": "Back in stock: {title}",
  "subject.price_dropped": "Price drop: {title}",
  "subject.low_stock": "Almost gone: {title}",
  "subject.reminder": "Still thinking about {title}?",
  "subject.digest": { one: "{count} update on your wishlist", other: "{count} updates on your wishlist" },
  "subject.reminders": {
    one: "{count} item is waiting on your wishlist",
    other: "{count} items are waiting on your wishlist",
  },

  "heading.back_in_stock": "It’s back in stock",
  "heading.price_dropped": "The price has dropped",
  "heading.low_stock": "Almost gone",
  "heading.reminder": "Still on your wishlist",
  "heading.digest": "News from your wishlist",

  "greeting.named": "Hello {name},",
  "greeting.anonymous": "Hello,",

  "intro.back_in_stock": "An item you saved to your wishlist is available again.",
  "intro.price_dropped": "An item you saved to your wishlist now costs less.",
  "intro.low_stock": "An item you saved to your wishlist is about to sell out.",
  "intro.reminder": "You saved this item to your wishlist a while ago. It is still there whenever you are ready.",
  "intro.digest": {
    one: "Here is what changed for {count} item on your wishlist.",
    other: "Here is what changed for {count} items on your wishlist.",
  },
  "intro.reminders": {
    one: "You saved {count} item to your wishlist a while ago. Here it is again.",
    other: "You saved these {count} items to your wishlist a while ago. Here they are again.",
  },

  "status.back_in_stock": "Back in stock",
  "status.price_dropped": "Price drop",
  "status.low_stock": { one: "Only {count} left", other: "Only {count} left" },
  "status.low_stock_few": "Only a few left",
  "status.reminder": "Saved to your wishlist",

  "price.current": "Price: {price}",
  "price.dropped": "Now {price}, was {oldPrice}",
  "button.viewProduct": "View product",

  signOff: "See you soon,",
  signature: "The {shopName} team",

  "footer.reason": {
    one: "You’re receiving this because you saved this item to your wishlist at {shopName}.",
    other: "You’re receiving this because you saved these items to your wishlist at {shopName}.",
  },
  "footer.unsubscribe": "Unsubscribe from wishlist alerts",
  "page.unsubscribe.title": "Unsubscribe from wishlist alerts",
  "page.unsubscribe.body":
    "Stop the emails {shopName} sends about the items on your wishlist: back in stock, price drops, low stock, reminders?",
  "page.backToShop": "Back to {shopName}",
  "page.unsubscribe.button": "Unsubscribe",
  "page.unsubscribed.title": "You are unsubscribed",
  "page.unsubscribed.body": "You will get no more wishlist alert emails from {shopName}.",
  "page.invalid.title": "This link is not valid",
  "page.invalid.body":
    "The link may have been cut short or changed. Use the link in the email exactly as it is, or reply to the email to ask the shop to stop sending them.",
};

export type AlertEmailMessages = {
  [K in keyof typeof en]: (typeof en)[K] extends string ? string : { one: string; other: string };
};

// French puts a no-break space before a colon, so the colon never starts a line.
const fr: AlertEmailMessages = {
  "subject.back_in_stock": "De retour en stock\u00a0: {title}",
  "subject.price_dropped": "Baisse de prix\u00a0: {title}",
  "subject.low_stock": "Bientôt épuisé\u00a0: {title}",
  "subject.reminder": "Toujours intéressé(e) par {title}\u00a0?",
  "subject.digest": {
    one: "{count} nouveauté dans votre liste d’envies",
    other: "{count} nouveautés dans votre liste d’envies",
  },
  "subject.reminders": {
    one: "{count} article vous attend dans votre liste d’envies",
    other: "{count} articles vous attendent dans votre liste d’envies",
  },

  "heading.back_in_stock": "De nouveau disponible",
  "heading.price_dropped": "Le prix a baissé",
  "heading.low_stock": "Bientôt épuisé",
  "heading.reminder": "Toujours dans votre liste d’envies",
  "heading.digest": "Du nouveau dans votre liste d’envies",

  "greeting.named": "Bonjour {name},",
  "greeting.anonymous": "Bonjour,",

  "intro.back_in_stock": "Un article de votre liste d’envies est de nouveau disponible.",
  "intro.price_dropped": "Un article de votre liste d’envies est maintenant moins cher.",
  "intro.low_stock": "Un article de votre liste d’envies sera bientôt épuisé.",
  "intro.reminder":
    "Vous avez ajouté cet article à votre liste d’envies il y a quelque temps. Il vous y attend toujours.",
  "intro.digest": {
    one: "Voici ce qui a changé pour {count} article de votre liste d’envies.",
    other: "Voici ce qui a changé pour {count} articles de votre liste d’envies.",
  },
  "intro.reminders": {
    one: "Vous avez ajouté {count} article à votre liste d’envies il y a quelque temps. Le voici.",
    other: "Vous avez ajouté ces {count} articles à votre liste d’envies il y a quelque temps. Les voici.",
  },

  "status.back_in_stock": "De retour en stock",
  "status.price_dropped": "Baisse de prix",
  "status.low_stock": { one: "Dernier exemplaire disponible", other: "Plus que {count} exemplaires disponibles" },
  "status.low_stock_few": "Plus que quelques exemplaires disponibles",
  "status.reminder": "Dans votre liste d’envies",

  "price.current": "Prix\u00a0: {price}",
  "price.dropped": "Maintenant {price} au lieu de {oldPrice}",
  "button.viewProduct": "Voir le produit",

  signOff: "À bientôt,",
  signature: "L’équipe {shopName}",

  "footer.reason": {
    one: "Vous recevez cet e-mail parce que vous avez ajouté cet article à votre liste d’envies sur {shopName}.",
    other: "Vous recevez cet e-mail parce que vous avez ajouté ces articles à votre liste d’envies sur {shopName}.",
  },
  "footer.unsubscribe": "Ne plus recevoir les alertes de ma liste d’envies",
  "page.unsubscribe.title": "Ne plus recevoir les alertes de ma liste d’envies",
  "page.unsubscribe.body":
    "Ne plus recevoir les e-mails de {shopName} au sujet des articles de votre liste d’envies (retour en stock, baisse de prix, stock limité, rappels) ?",
  "page.backToShop": "Retour à {shopName}",
  "page.unsubscribe.button": "Me désabonner",
  "page.unsubscribed.title": "Vous êtes désabonné(e)",
  "page.unsubscribed.body": "Vous ne recevrez plus d’alertes de liste d’envies de {shopName}.",
  "page.invalid.title": "Ce lien n’est pas valide",
  "page.invalid.body":
    "Le lien a peut-être été tronqué ou modifié. Utilisez le lien de l’e-mail tel quel, ou répondez à l’e-mail pour demander à la boutique de ne plus vous écrire.",
};

const de: AlertEmailMessages = {
  "subject.back_in_stock": "Wieder auf Lager: {title}",
  "subject.price_dropped": "Preis gesenkt: {title}",
  "subject.low_stock": "Fast ausverkauft: {title}",
  "subject.reminder": "Noch interessiert an {title}?",
  "subject.digest": {
    one: "{count} Neuigkeit zu Ihrer Wunschliste",
    other: "{count} Neuigkeiten zu Ihrer Wunschliste",
  },
  "subject.reminders": {
    one: "{count} Artikel wartet auf Ihrer Wunschliste",
    other: "{count} Artikel warten auf Ihrer Wunschliste",
  },

  "heading.back_in_stock": "Wieder verfügbar",
  "heading.price_dropped": "Der Preis ist gesunken",
  "heading.low_stock": "Fast ausverkauft",
  "heading.reminder": "Noch auf Ihrer Wunschliste",
  "heading.digest": "Neues von Ihrer Wunschliste",

  "greeting.named": "Hallo {name},",
  "greeting.anonymous": "Guten Tag,",

  "intro.back_in_stock": "Ein Artikel auf Ihrer Wunschliste ist wieder erhältlich.",
  "intro.price_dropped": "Ein Artikel auf Ihrer Wunschliste ist jetzt günstiger.",
  "intro.low_stock": "Ein Artikel auf Ihrer Wunschliste ist fast ausverkauft.",
  "intro.reminder":
    "Sie haben diesen Artikel vor einiger Zeit auf Ihre Wunschliste gesetzt. Er wartet dort noch auf Sie.",
  "intro.digest": {
    one: "Das hat sich bei {count} Artikel auf Ihrer Wunschliste geändert.",
    other: "Das hat sich bei {count} Artikeln auf Ihrer Wunschliste geändert.",
  },
  "intro.reminders": {
    one: "Sie haben vor einiger Zeit {count} Artikel auf Ihre Wunschliste gesetzt. Hier ist er noch einmal.",
    other: "Sie haben vor einiger Zeit diese {count} Artikel auf Ihre Wunschliste gesetzt. Hier sind sie noch einmal.",
  },

  "status.back_in_stock": "Wieder auf Lager",
  "status.price_dropped": "Preis gesenkt",
  "status.low_stock": { one: "Nur noch {count} Stück verfügbar", other: "Nur noch {count} Stück verfügbar" },
  "status.low_stock_few": "Nur noch wenige verfügbar",
  "status.reminder": "Auf Ihrer Wunschliste",

  "price.current": "Preis: {price}",
  "price.dropped": "Jetzt {price} statt {oldPrice}",
  "button.viewProduct": "Zum Produkt",

  // German letters end the closing formula without a comma.
  signOff: "Viele Grüße",
  signature: "Ihr Team von {shopName}",

  "footer.reason": {
    one: "Sie erhalten diese E-Mail, weil Sie diesen Artikel bei {shopName} auf Ihre Wunschliste gesetzt haben.",
    other: "Sie erhalten diese E-Mail, weil Sie diese Artikel bei {shopName} auf Ihre Wunschliste gesetzt haben.",
  },
  "footer.unsubscribe": "Benachrichtigungen zur Wunschliste abbestellen",
  "page.unsubscribe.title": "Benachrichtigungen zur Wunschliste abbestellen",
  "page.unsubscribe.body":
    "Keine E-Mails mehr von {shopName} zu den Artikeln auf Ihrer Wunschliste erhalten (wieder vorrätig, Preissenkung, geringer Bestand, Erinnerungen)?",
  "page.backToShop": "Zurück zu {shopName}",
  "page.unsubscribe.button": "Abbestellen",
  "page.unsubscribed.title": "Sie haben die Benachrichtigungen abbestellt",
  "page.unsubscribed.body": "Sie erhalten von {shopName} keine Benachrichtigungen zur Wunschliste mehr.",
  "page.invalid.title": "Dieser Link ist ungültig",
  "page.invalid.body":
    "Der Link wurde womöglich gekürzt oder verändert. Verwenden Sie den Link aus der E-Mail unverändert, oder antworten Sie auf die E-Mail und bitten Sie den Shop, Ihnen keine mehr zu senden.",
};

// Spanish letters open with a colon after the greeting.
const es: AlertEmailMessages = {
  "subject.back_in_stock": "De nuevo disponible: {title}",
  "subject.price_dropped": "Bajada de precio: {title}",
  "subject.low_stock": "Últimas unidades: {title}",
  "subject.reminder": "¿Sigue pensando en {title}?",
  "subject.digest": {
    one: "{count} novedad en su lista de deseos",
    other: "{count} novedades en su lista de deseos",
  },
  "subject.reminders": {
    one: "{count} artículo le espera en su lista de deseos",
    other: "{count} artículos le esperan en su lista de deseos",
  },

  "heading.back_in_stock": "Vuelve a estar disponible",
  "heading.price_dropped": "El precio ha bajado",
  "heading.low_stock": "Casi agotado",
  "heading.reminder": "Sigue en su lista de deseos",
  "heading.digest": "Novedades de su lista de deseos",

  "greeting.named": "Hola, {name}:",
  "greeting.anonymous": "Hola:",

  "intro.back_in_stock": "Un artículo que guardó en su lista de deseos vuelve a estar disponible.",
  "intro.price_dropped": "Un artículo que guardó en su lista de deseos ahora cuesta menos.",
  "intro.low_stock": "Un artículo que guardó en su lista de deseos está a punto de agotarse.",
  "intro.reminder": "Hace un tiempo guardó este artículo en su lista de deseos. Todavía le está esperando.",
  "intro.digest": {
    one: "Esto es lo que ha cambiado en {count} artículo de su lista de deseos.",
    other: "Esto es lo que ha cambiado en {count} artículos de su lista de deseos.",
  },
  "intro.reminders": {
    one: "Hace un tiempo guardó {count} artículo en su lista de deseos. Aquí lo tiene de nuevo.",
    other: "Hace un tiempo guardó estos {count} artículos en su lista de deseos. Aquí los tiene de nuevo.",
  },

  "status.back_in_stock": "De nuevo disponible",
  "status.price_dropped": "Bajada de precio",
  "status.low_stock": { one: "Solo queda {count} unidad", other: "Solo quedan {count} unidades" },
  "status.low_stock_few": "Quedan pocas unidades",
  "status.reminder": "En su lista de deseos",

  "price.current": "Precio: {price}",
  "price.dropped": "Ahora {price}, antes {oldPrice}",
  "button.viewProduct": "Ver producto",

  signOff: "Un cordial saludo,",
  signature: "El equipo de {shopName}",

  "footer.reason": {
    one: "Recibe este correo porque guardó este artículo en su lista de deseos de {shopName}.",
    other: "Recibe este correo porque guardó estos artículos en su lista de deseos de {shopName}.",
  },
  "footer.unsubscribe": "Darse de baja de las alertas de la lista de deseos",
  "page.unsubscribe.title": "Darse de baja de las alertas de la lista de deseos",
  "page.unsubscribe.body":
    "¿Dejar de recibir los correos de {shopName} sobre los artículos de su lista de deseos (de nuevo disponibles, bajadas de precio, pocas unidades, recordatorios)?",
  "page.backToShop": "Volver a {shopName}",
  "page.unsubscribe.button": "Darme de baja",
  "page.unsubscribed.title": "Se ha dado de baja",
  "page.unsubscribed.body": "Ya no recibirá alertas de la lista de deseos de {shopName}.",
  "page.invalid.title": "Este enlace no es válido",
  "page.invalid.body":
    "Puede que el enlace esté cortado o modificado. Use el enlace del correo tal cual, o responda al correo para pedir a la tienda que deje de enviarlos.",
};

export const ALERT_EMAIL_MESSAGES: Record<AlertEmailLanguage, AlertEmailMessages> = { en, fr, de, es };
