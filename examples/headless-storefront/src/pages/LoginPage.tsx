import { useState, type FormEvent } from "react";
import { navigate } from "../router";
import { describeError, useShopper, type LogInResult } from "../shopper";

/**
 * The platform stand-in's customers (stand-in/demo-data.ts). A real storefront asks for an email address; the demo
 * offers its customers to pick from.
 */
const DEMO_CUSTOMERS: Array<[email: string, name: string]> = [
  ["ada@example.com", "Ada Lovelace"],
  ["grace@example.com", "Grace Hopper"],
  ["alan@example.com", "Alan Turing"],
  ["katherine@example.com", "Katherine Johnson"],
  ["edsger@example.com", "Edsger Dijkstra"],
];

/** What the shopper is told once logged in: whom, and what became of the list they kept as a guest. */
export function welcome({ customer, merged }: LogInResult): string {
  const moved =
    merged.count === 0
      ? "Nothing from this visit needed adding to your wishlist."
      : `${merged.count === 1 ? "1 item" : `${merged.count} items`} you saved before logging in ${merged.count === 1 ? "is" : "are"} now in your wishlist.`;
  const link = merged.guestShareLinkEnded ? " The share link you made as a guest no longer works." : "";
  return `Welcome back, ${customer.firstName}. ${moved}${link}`;
}

/** The demo login: a stand-in customer and any password, checked by the Storefront API, then the guest list merged. */
export function LoginPage({ announce }: { announce: (message: string) => void }) {
  const { customer, logIn, logOut } = useShopper();
  const [failure, setFailure] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);

  async function submit(event: FormEvent<HTMLFormElement>) {
    event.preventDefault();
    const form = new FormData(event.currentTarget);
    setBusy(true);
    setFailure(null);
    try {
      const result = await logIn(String(form.get("email")), String(form.get("password")));
      announce(welcome(result));
      navigate("/lists");
    } catch (error) {
      setFailure(`Not logged in: ${describeError(error)}`);
      setBusy(false);
    }
  }

  if (customer) {
    return (
      <>
        <h1 tabIndex={-1}>Your account</h1>
        <p>
          You are logged in as {customer.firstName} {customer.lastName} ({customer.email}).
        </p>
        <button type="button" className="button" onClick={() => void logOut()}>
          Log out
        </button>
      </>
    );
  }
  return (
    <>
      <h1 tabIndex={-1}>Log in</h1>
      <p>What you saved as a guest joins your wishlist when you log in.</p>
      {failure && <p role="alert">{failure}</p>}
      <form className="login" onSubmit={(event) => void submit(event)}>
        <label htmlFor="login-email">Demo customer</label>
        <select id="login-email" name="email" defaultValue={DEMO_CUSTOMERS[0]![0]}>
          {DEMO_CUSTOMERS.map(([email, name]) => (
            <option key={email} value={email}>
              {name} ({email})
            </option>
          ))}
        </select>
        <label htmlFor="login-password">Password</label>
        <input
          id="login-password"
          name="password"
          type="password"
          required
          autoComplete="current-password"
          aria-describedby="login-password-hint"
        />
        <p id="login-password-hint" className="hint">
          Any password: the local stand-in&apos;s customers have none.
        </p>
        <button type="submit" className="button" disabled={busy}>
          Log in
        </button>
      </form>
    </>
  );
}
