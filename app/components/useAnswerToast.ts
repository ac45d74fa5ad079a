import { useAppBridge } from "@shopify/app-bridge-react";
import { useEffect, useRef } from "react";

/** What a page's action answers a fetcher: it worked, or a form failure with its message. */
export interface ActionAnswer {
  ok: boolean;
  formError?: string;
}

/**
 * Says a fetcher's answer in a toast, once per answer: `done` when the action worked, else the form's error
 * (or `failed`); `onAnswer` runs after the toast. `settled`: only once the fetcher is idle again, that is
 * once the page's data is revalidated, so the page already shows what the toast says.
 */
export function useAnswerToast<Answer extends ActionAnswer>(
  fetcher: { state: string; data: Answer | undefined },
  {
    done,
    failed,
    settled = false,
    onAnswer,
  }: { done: string; failed: string; settled?: boolean; onAnswer?: (answer: Answer) => void },
) {
  const shopify = useAppBridge();
  const answered = useRef<Answer | undefined>(undefined);
  useEffect(() => {
    const answer = fetcher.data;
    if (!answer || answer === answered.current || (settled && fetcher.state !== "idle")) return;
    answered.current = answer;
    if (answer.ok) shopify.toast.show(done);
    else shopify.toast.show(answer.formError ?? failed, { isError: true });
    onAnswer?.(answer);
  }, [fetcher.data, fetcher.state, settled, done, failed, onAnswer, shopify]);
}
