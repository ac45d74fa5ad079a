/**
 * The few routes of the example on the History API (no router package): `usePath` re-renders on navigation,
 * `navigate` and `<Link>` move without reloading the page. A real storefront uses its framework's router.
 */
import { useEffect, useState, type AnchorHTMLAttributes, type MouseEvent } from "react";

const NAVIGATED = "storefront:navigated";

export function navigate(to: string) {
  window.history.pushState(null, "", to);
  window.dispatchEvent(new Event(NAVIGATED));
}

export function usePath(): string {
  const [path, setPath] = useState(window.location.pathname);
  useEffect(() => {
    const update = () => setPath(window.location.pathname);
    window.addEventListener("popstate", update);
    window.addEventListener(NAVIGATED, update);
    return () => {
      window.removeEventListener("popstate", update);
      window.removeEventListener(NAVIGATED, update);
    };
  }, []);
  return path;
}

export function Link({ to, ...props }: { to: string } & AnchorHTMLAttributes<HTMLAnchorElement>) {
  const follow = (event: MouseEvent<HTMLAnchorElement>) => {
    // A new tab or window, or a download: the browser's to handle.
    if (event.button !== 0 || event.metaKey || event.ctrlKey || event.shiftKey || event.altKey) return;
    event.preventDefault();
    navigate(to);
  };
  return <a href={to} onClick={follow} {...props} />;
}
