import { useFetcher } from "@remix-run/react";
import { Button, type ButtonProps } from "@shopify/polaris";
import { useAnswerToast, type ActionAnswer } from "~/components/useAnswerToast";

/**
 * A button that posts one form to a page's action through a fetcher of its own (`fields`: the intent and
 * the ids it acts on; `action`: another route's action than the page's) and says the answer in a toast.
 */
export function ActionButton({
  action,
  fields,
  done,
  failed,
  children,
  ...button
}: {
  action?: string;
  fields: Record<string, string>;
  done: string;
  failed: string;
  children: string;
  accessibilityLabel: string;
  disabled: boolean;
  size?: ButtonProps["size"];
}) {
  const fetcher = useFetcher<ActionAnswer>();
  useAnswerToast(fetcher, { done, failed });
  return (
    <fetcher.Form method="post" action={action}>
      {Object.entries(fields).map(([name, value]) => (
        <input key={name} type="hidden" name={name} value={value} />
      ))}
      <Button submit loading={fetcher.state !== "idle"} {...button}>
        {children}
      </Button>
    </fetcher.Form>
  );
}
