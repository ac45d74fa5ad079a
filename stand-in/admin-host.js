/**
 * The stand-in admin page around the embedded app (development and tests only): it frames the app, mints
 * session tokens for it through the stand-in server, and draws what App Bridge asks for outside the
 * frame (nav menu, title bar, save bar, toasts, loading bar), as the platform's admin does.
 */
(() => {
  const config = JSON.parse(document.getElementById("admin-config").textContent);
  const frame = document.getElementById("app-frame");
  const nav = document.getElementById("app-nav");
  const title = document.getElementById("title-bar-title");
  const titleActions = document.getElementById("title-bar-actions");
  const saveBar = document.getElementById("save-bar");
  const saveBarActions = document.getElementById("save-bar-actions");
  const toasts = document.getElementById("toasts");
  const loadingBar = document.getElementById("loading-bar");
  // The admin language picker reloads the admin (and so the app) in the chosen language at once.
  const localePicker = document.getElementById("admin-locale");
  localePicker.querySelector("select").addEventListener("change", () => localePicker.requestSubmit());

  let cachedToken = null;
  async function sessionToken() {
    if (cachedToken && cachedToken.expires > Date.now()) return cachedToken.token;
    const response = await fetch(config.tokenPath, { method: "POST" });
    if (!response.ok) throw new Error(`session token: HTTP ${response.status}`);
    const { token } = await response.json();
    cachedToken = { token, expires: Date.now() + 40_000 };
    return token;
  }

  function send(message) {
    frame.contentWindow.postMessage({ source: "admin-stand-in", ...message }, config.appOrigin);
  }

  function button(action, onClick) {
    const element = document.createElement(action.href && action.variant === "breadcrumb" ? "a" : "button");
    element.textContent = action.label;
    element.className = `admin-button admin-button--${action.variant}${action.tone ? ` admin-button--${action.tone}` : ""}`;
    if (element.tagName === "BUTTON") {
      element.type = "button";
      element.disabled = action.disabled || action.loading;
      if (action.loading) element.setAttribute("aria-busy", "true");
    } else {
      element.href = "#";
    }
    element.addEventListener("click", (event) => {
      event.preventDefault();
      onClick();
    });
    return element;
  }

  let navItems = [];
  let currentPath = "";
  function drawNav() {
    nav.replaceChildren(
      ...navItems
        .filter((item) => !item.home)
        .map((item) => {
          const link = document.createElement("a");
          link.href = hostPathFor(item.href);
          link.textContent = item.label;
          link.className = "admin-nav__item";
          if (appPathOf(item.href) === currentPath) link.setAttribute("aria-current", "page");
          link.addEventListener("click", (event) => {
            event.preventDefault();
            navigate(item.href);
          });
          const listItem = document.createElement("li");
          listItem.append(link);
          return listItem;
        }),
    );
    const home = navItems.find((item) => item.home);
    const appLink = document.getElementById("app-home");
    appLink.onclick = (event) => {
      event.preventDefault();
      if (home) navigate(home.href);
    };
    if (home && appPathOf(home.href) === currentPath) appLink.setAttribute("aria-current", "page");
    else appLink.removeAttribute("aria-current");
  }

  const appPathOf = (href) => new URL(href, config.appOrigin).pathname.replace(/\/$/, "");
  /** `/app/lists` in the app is `/store/<shop>/apps/<handle>/lists` in the admin's address bar. */
  const hostPathFor = (href) => `${config.basePath}${appPathOf(href).replace(/^\/app/, "")}`;

  function navigate(href) {
    if (!saveBar.hidden) return shakeSaveBar();
    send({ type: "navigate", href });
  }

  function shakeSaveBar() {
    saveBar.classList.remove("shake");
    void saveBar.offsetWidth;
    saveBar.classList.add("shake");
  }

  function showToast({ id, message, isError, duration }) {
    const element = document.createElement("div");
    element.className = `admin-toast${isError ? " admin-toast--error" : ""}`;
    element.dataset.id = id;
    element.setAttribute("role", isError ? "alert" : "status");
    element.textContent = message;
    toasts.append(element);
    setTimeout(() => element.remove(), Math.max(1000, duration));
  }

  window.addEventListener("message", async (event) => {
    if (event.source !== frame.contentWindow || event.origin !== config.appOrigin) return;
    const data = event.data;
    if (!data || data.source !== "app-bridge-stand-in") return;
    switch (data.type) {
      case "id-token":
        try {
          send({ type: "reply", id: data.id, token: await sessionToken() });
        } catch (error) {
          send({ type: "reply", id: data.id, error: String(error) });
        }
        break;
      case "leave-confirmation":
        shakeSaveBar();
        break;
      case "nav":
        navItems = data.items;
        drawNav();
        break;
      case "title-bar":
        title.textContent = data.title;
        document.title = data.title
          ? `${data.title} · ${config.appName} · ${config.shopName}`
          : `${config.appName} · ${config.shopName}`;
        titleActions.replaceChildren(
          ...data.actions
            .slice()
            .reverse()
            .map((action) => button(action, () => send({ type: "title-bar-action", index: action.index }))),
        );
        break;
      case "save-bar":
        saveBar.hidden = !data.visible;
        saveBarActions.replaceChildren(
          ...data.actions
            .slice()
            .reverse()
            .map((action) => button(action, () => send({ type: "save-bar-action", index: action.index }))),
        );
        break;
      case "toast":
        showToast(data);
        break;
      case "toast-hide":
        toasts.querySelector(`[data-id="${CSS.escape(data.id)}"]`)?.remove();
        break;
      case "loading":
        loadingBar.hidden = !data.loading;
        break;
      case "location":
        currentPath = data.path.replace(/\/$/, "");
        if (currentPath.startsWith("/app")) {
          // The platform's own parameters (shop, host, the token...) stay out of the admin's address bar.
          const search = new URLSearchParams(data.search);
          for (const name of ["embedded", "shop", "host", "id_token", "locale", "timestamp", "hmac", "session"]) {
            search.delete(name);
          }
          const query = search.toString();
          history.replaceState(
            null,
            "",
            `${config.basePath}${currentPath.replace(/^\/app/, "")}${query ? `?${query}` : ""}`,
          );
        }
        drawNav();
        break;
      case "open-admin":
        window.location.assign(`${config.adminPath}${data.path}`);
        break;
      case "leave-app": {
        // Only to the admin's own pages (a charge's confirmation page) or the app's: the framed app may not send
        // the merchant's whole admin anywhere else.
        let url;
        try {
          url = new URL(data.url);
        } catch {
          break;
        }
        const allowed = url.origin === location.origin || url.origin === config.appOrigin;
        if (allowed && (url.protocol === "https:" || url.protocol === "http:")) window.location.href = url.href;
        break;
      }
    }
  });
})();
