/**
 * Stand-in for the platform's App Bridge script, for development and tests only (production pages load
 * the platform's own script from its CDN). It gives the embedded app what the platform's admin gives it:
 *  - `window.shopify`: config, idToken(), toast, modal, saveBar, loading, environment;
 *  - `fetch` to the app's own origin carries `Authorization: Bearer <session token>`, retried once with a
 *    fresh token when the app answers 401 with `X-Shopify-Retry-Invalid-Session-Request`; a 401 with
 *    `X-Shopify-API-Request-Failure-Reauthorize-Url` sends the whole admin there (billing's confirmation page);
 *  - the `ui-nav-menu`, `ui-title-bar`, `ui-modal` and `ui-save-bar` elements that App Bridge React renders;
 *  - the session-token bounce page (`?shopify-reload=`) of the platform library's embedded auth;
 *  - `shopify://admin/...` links, opened in the (stand-in) admin around the app.
 * Nav menu, title bar, save bar and toasts are drawn by the admin page around the frame, as the platform
 * does; modals are drawn inside the frame. The admin page is the origin this script was served from, and
 * messages are exchanged only with it (docs/admin.md).
 */
(() => {
  const script = document.currentScript;
  const adminOrigin = new URL(script.src).origin;
  const params = new URLSearchParams(location.search);
  const config = {
    apiKey: script.dataset.apiKey || "",
    shop: params.get("shop") || "",
    host: params.get("host") || "",
    locale: params.get("locale") || "en",
  };
  const embedded = window.top !== window.self;

  // ---- messages with the admin page ----------------------------------------------------------------
  let sequence = 0;
  const pending = new Map();
  function post(message) {
    if (embedded) window.parent.postMessage({ source: "app-bridge-stand-in", ...message }, adminOrigin);
  }
  function ask(type, payload = {}) {
    return new Promise((resolve, reject) => {
      if (!embedded) return reject(new Error("App Bridge: the app is not open inside the admin"));
      const id = ++sequence;
      const timer = setTimeout(() => {
        pending.delete(id);
        reject(new Error(`App Bridge: the admin did not answer ${type}`));
      }, 15_000);
      pending.set(id, { resolve, reject, timer });
      post({ type, id, ...payload });
    });
  }

  // ---- session tokens and fetch ------------------------------------------------------------------------
  const idToken = () => ask("id-token").then((answer) => answer.token);

  const originalFetch = window.fetch.bind(window);
  window.fetch = async (input, init) => {
    const request = new Request(input, init);
    if (new URL(request.url).origin !== location.origin || request.headers.has("Authorization")) {
      return originalFetch(request);
    }
    const retry = request.clone();
    const withToken = async (req) => {
      const headers = new Headers(req.headers);
      headers.set("Authorization", `Bearer ${await idToken()}`);
      return originalFetch(new Request(req, { headers }));
    };
    let response = await withToken(request);
    if (response.status === 401 && response.headers.get("X-Shopify-Retry-Invalid-Session-Request") === "1") {
      response = await withToken(retry);
    }
    leaveIfAsked(response);
    return response;
  };

  /**
   * The platform library answers a fetch that must take the merchant out of the app (a charge to approve, a
   * grant of new scopes) with 401 and the address in `X-Shopify-API-Request-Failure-Reauthorize-Url`, since a
   * fetch cannot redirect the page; App Bridge then navigates the top window there. The admin page checks
   * where (its own pages or the app's) before it goes.
   */
  function leaveIfAsked(response) {
    const target = response.status === 401 && response.headers.get("X-Shopify-API-Request-Failure-Reauthorize-Url");
    if (!target) return;
    const url = new URL(target, location.href);
    if (url.protocol === "https:" || url.protocol === "http:") post({ type: "leave-app", url: url.href });
  }

  // The platform library's bounce page: come back to `shopify-reload` with a fresh token in the URL.
  const reload = params.get("shopify-reload");
  if (reload) {
    const target = new URL(reload, location.href);
    if (target.origin === location.origin) {
      idToken().then((token) => {
        target.searchParams.set("id_token", token);
        location.replace(target.href);
      });
    }
  }

  // ---- toasts, loading -------------------------------------------------------------------------------
  let toastId = 0;
  const toast = {
    show(message, options = {}) {
      const id = `toast-${++toastId}`;
      post({
        type: "toast",
        id,
        message: String(message),
        isError: Boolean(options.isError),
        duration: options.duration ?? 5000,
      });
      return id;
    },
    hide(id) {
      post({ type: "toast-hide", id });
    },
  };

  // ---- buttons declared inside ui-* elements, drawn elsewhere ----------------------------------------
  /** The buttons and links a ui-title-bar / ui-save-bar declares, described for drawing elsewhere. */
  function describeActions(element) {
    return [...element.querySelectorAll(":scope > button, :scope > a, :scope > section > button")].map(
      (node, index) => ({
        index,
        label: (node.textContent || node.getAttribute("aria-label") || "").trim(),
        variant: node.getAttribute("variant") || (node.tagName === "A" ? "link" : "secondary"),
        tone: node.getAttribute("tone") || undefined,
        disabled: node.hasAttribute("disabled"),
        loading: node.hasAttribute("loading"),
        href: node.tagName === "A" ? node.getAttribute("href") : undefined,
      }),
    );
  }
  function activate(element, index) {
    const node = [...element.querySelectorAll(":scope > button, :scope > a, :scope > section > button")][index];
    if (node && !node.hasAttribute("disabled")) node.click();
  }
  function observe(element, callback) {
    const observer = new MutationObserver(callback);
    observer.observe(element, { subtree: true, childList: true, attributes: true, characterData: true });
    return observer;
  }

  /** The page's title bar (outside any modal) and the save bar on show, if any. */
  const current = { titleBar: null, saveBar: null };

  // ---- ui-nav-menu -----------------------------------------------------------------------------------
  class NavMenu extends HTMLElement {
    connectedCallback() {
      this.observer = observe(this, () => this.publish());
      this.publish();
    }
    disconnectedCallback() {
      this.observer?.disconnect();
      post({ type: "nav", items: [] });
    }
    publish() {
      const items = [...this.querySelectorAll("a")].map((link) => ({
        label: (link.textContent || "").trim(),
        href: link.getAttribute("href"),
        home: link.getAttribute("rel") === "home",
      }));
      post({ type: "nav", items });
    }
    navigate(href) {
      const link = [...this.querySelectorAll("a")].find((candidate) => candidate.getAttribute("href") === href);
      if (link) link.dispatchEvent(new CustomEvent("shopify:navigate", { bubbles: true }));
    }
  }

  // ---- ui-title-bar ----------------------------------------------------------------------------------
  class TitleBar extends HTMLElement {
    get inModal() {
      return Boolean(this.closest("ui-modal"));
    }
    connectedCallback() {
      if (this.inModal) return;
      this.observer = observe(this, () => this.publish());
      this.publish();
    }
    disconnectedCallback() {
      this.observer?.disconnect();
      if (!this.inModal && current.titleBar === this) post({ type: "title-bar", title: "", actions: [] });
    }
    publish() {
      current.titleBar = this;
      post({ type: "title-bar", title: this.getAttribute("title") || "", actions: describeActions(this) });
    }
  }

  // ---- ui-save-bar -----------------------------------------------------------------------------------
  const saveBars = new Map();
  class SaveBar extends HTMLElement {
    connectedCallback() {
      if (this.id) saveBars.set(this.id, this);
      this.observer = observe(this, () => this.showing && this.publish());
    }
    disconnectedCallback() {
      this.observer?.disconnect();
      if (this.showing) this.hide();
      if (this.id) saveBars.delete(this.id);
    }
    get showing() {
      return current.saveBar === this;
    }
    publish() {
      post({
        type: "save-bar",
        visible: true,
        actions: describeActions(this),
        discardConfirmation: this.hasAttribute("discardConfirmation"),
      });
    }
    show() {
      if (this.showing) return;
      current.saveBar = this;
      this.publish();
      this.dispatchEvent(new Event("show"));
    }
    hide() {
      if (!this.showing) return;
      current.saveBar = null;
      post({ type: "save-bar", visible: false, actions: [] });
      this.dispatchEvent(new Event("hide"));
    }
    toggle() {
      if (this.showing) this.hide();
      else this.show();
    }
  }

  // ---- ui-modal: a native dialog inside the frame -----------------------------------------------------
  const modals = new Map();
  class Modal extends HTMLElement {
    constructor() {
      super();
      this.contentElement = document.createElement("div");
      this.contentElement.className = "ab-modal__content";
    }
    get content() {
      return this.contentElement;
    }
    connectedCallback() {
      if (this.id) modals.set(this.id, this);
      // The dialog joins the body when first shown, not here: a ui-modal in server-rendered markup connects
      // while the page is still parsed, and a node added to the body then breaks React's hydration of it
      // (the platform draws modals outside the app's document, so its element adds nothing there).
      this.observer = observe(this, () => this.drawChrome());
    }
    disconnectedCallback() {
      this.observer?.disconnect();
      if (this.id) modals.delete(this.id);
      if (this.dialog?.open) this.dialog.close();
      this.dialog?.remove();
    }
    ensureDialog() {
      if (this.dialog) return;
      const dialog = document.createElement("dialog");
      dialog.className = `ab-modal ab-modal--${this.getAttribute("variant") || "base"}`;
      dialog.innerHTML =
        '<div class="ab-modal__header"><h2 class="ab-modal__title"></h2>' +
        '<button type="button" class="ab-modal__close" aria-label="Close">&times;</button></div>' +
        '<div class="ab-modal__body"></div><div class="ab-modal__footer"></div>';
      const titleId = `ab-modal-title-${++sequence}`;
      dialog.querySelector(".ab-modal__title").id = titleId;
      dialog.setAttribute("aria-labelledby", titleId);
      dialog.querySelector(".ab-modal__body").append(this.contentElement);
      dialog.querySelector(".ab-modal__close").addEventListener("click", () => this.hide());
      dialog.addEventListener("cancel", (event) => {
        event.preventDefault();
        this.hide();
      });
      document.body.append(dialog);
      this.dialog = dialog;
      this.drawChrome();
    }
    drawChrome() {
      if (!this.dialog) return;
      const titleBar = this.querySelector("ui-title-bar");
      this.dialog.querySelector(".ab-modal__title").textContent = titleBar?.getAttribute("title") || "";
      const footer = this.dialog.querySelector(".ab-modal__footer");
      footer.replaceChildren(
        ...(titleBar ? describeActions(titleBar) : []).reverse().map((action) => {
          const button = document.createElement("button");
          button.type = "button";
          button.textContent = action.label;
          button.className = `ab-button ab-button--${action.variant}${action.tone ? ` ab-button--${action.tone}` : ""}`;
          button.disabled = action.disabled || action.loading;
          if (action.loading) button.setAttribute("aria-busy", "true");
          button.addEventListener("click", () => activate(titleBar, action.index));
          return button;
        }),
      );
    }
    get open() {
      return Boolean(this.dialog?.open);
    }
    show() {
      this.ensureDialog();
      if (this.dialog.open) return;
      this.drawChrome();
      this.dialog.showModal();
      this.dispatchEvent(new Event("show"));
    }
    hide() {
      if (!this.dialog?.open) return;
      this.dialog.close();
      this.dispatchEvent(new Event("hide"));
    }
    toggle() {
      if (this.open) this.hide();
      else this.show();
    }
  }

  const style = document.createElement("style");
  // The ui-* elements only declare; what they declare is drawn elsewhere. (A stylesheet rather than an
  // inline style, which would differ from the server-rendered markup React hydrates.)
  style.textContent = `
    ui-nav-menu, ui-title-bar, ui-save-bar, ui-modal { display: none; }
    .ab-modal { border: 0; border-radius: 12px; padding: 0; width: min(620px, calc(100vw - 32px));
      box-shadow: 0 20px 40px rgba(0,0,0,.25); font: 14px/20px -apple-system, BlinkMacSystemFont, "Segoe UI", Roboto, sans-serif; color: #303030; }
    .ab-modal--small { width: min(380px, calc(100vw - 32px)); }
    .ab-modal--large { width: min(980px, calc(100vw - 32px)); }
    .ab-modal::backdrop { background: rgba(0,0,0,.5); }
    .ab-modal__header { display: flex; align-items: center; justify-content: space-between; padding: 12px 16px; background: #f3f3f3; border-bottom: 1px solid #e3e3e3; }
    .ab-modal__title { margin: 0; font-size: 14px; font-weight: 650; }
    .ab-modal__close { border: 0; background: none; font-size: 20px; cursor: pointer; width: 28px; height: 28px; border-radius: 8px; }
    .ab-modal__body { padding: 16px; max-height: 70vh; overflow: auto; }
    .ab-modal__footer { display: flex; justify-content: flex-end; gap: 8px; padding: 12px 16px; border-top: 1px solid #e3e3e3; }
    .ab-button { border-radius: 8px; padding: 6px 12px; font: inherit; font-weight: 550; cursor: pointer; border: 1px solid #d4d4d4; background: #fff; color: #303030; }
    .ab-button--primary { background: #303030; color: #fff; border-color: #303030; }
    .ab-button--critical.ab-button--primary, .ab-button--primary.ab-button--critical { background: #c70a24; border-color: #c70a24; }
    .ab-button:disabled { opacity: .55; cursor: default; }
    .ab-button:focus-visible, .ab-modal__close:focus-visible { outline: 2px solid #005bd3; outline-offset: 1px; }
  `;
  document.head.append(style);

  customElements.define("ui-nav-menu", NavMenu);
  customElements.define("ui-title-bar", TitleBar);
  customElements.define("ui-save-bar", SaveBar);
  customElements.define("ui-modal", Modal);

  // ---- what the admin page asks of the app ------------------------------------------------------------
  window.addEventListener("message", (event) => {
    if (event.source !== window.parent || event.origin !== adminOrigin) return;
    const data = event.data;
    if (!data || data.source !== "admin-stand-in") return;
    if (data.type === "reply") {
      const waiting = pending.get(data.id);
      if (!waiting) return;
      pending.delete(data.id);
      clearTimeout(waiting.timer);
      if (data.error) waiting.reject(new Error(data.error));
      else waiting.resolve(data);
    } else if (data.type === "navigate") {
      document.querySelector("ui-nav-menu")?.navigate(data.href);
    } else if (data.type === "title-bar-action" && current.titleBar) {
      activate(current.titleBar, data.index);
    } else if (data.type === "save-bar-action" && current.saveBar) {
      activate(current.saveBar, data.index);
    }
  });

  // Links into the platform's admin (`shopify://admin/products/1`) open there, around the app.
  document.addEventListener(
    "click",
    (event) => {
      const link = event.target instanceof Element ? event.target.closest("a[href^='shopify://admin']") : null;
      if (!link) return;
      event.preventDefault();
      post({ type: "open-admin", path: link.getAttribute("href").slice("shopify://admin".length) });
    },
    true,
  );

  // The admin page keeps its address in step with the page the app shows.
  const reportLocation = () => post({ type: "location", path: location.pathname, search: location.search });
  for (const method of ["pushState", "replaceState"]) {
    const original = history[method].bind(history);
    history[method] = (...args) => {
      original(...args);
      reportLocation();
    };
  }
  window.addEventListener("popstate", reportLocation);
  reportLocation();

  window.shopify = {
    config,
    origin: location.origin,
    environment: { embedded, mobile: false, pos: false },
    idToken,
    toast,
    loading(isLoading) {
      post({ type: "loading", loading: isLoading !== false });
    },
    modal: {
      show: (id) => modals.get(id)?.show(),
      hide: (id) => modals.get(id)?.hide(),
      toggle: (id) => modals.get(id)?.toggle(),
    },
    saveBar: {
      show: (id) => saveBars.get(id)?.show(),
      hide: (id) => saveBars.get(id)?.hide(),
      toggle: (id) => saveBars.get(id)?.toggle(),
      leaveConfirmation: () => (current.saveBar ? ask("leave-confirmation").then(() => undefined) : Promise.resolve()),
    },
    user: async () => ({ id: 1, accountAccess: "Account owner" }),
  };
})();
