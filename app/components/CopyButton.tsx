import { useAppBridge } from "@shopify/app-bridge-react";
import { Button } from "@shopify/polaris";
import { useRef } from "react";
import { useI18n } from "~/i18n/i18n-context";

/** A "Copy" button that puts a value (a key, a secret) on the clipboard and says so in a toast. */
export function CopyButton({ value, accessibilityLabel }: { value: string; accessibilityLabel: string }) {
  const shopify = useAppBridge();
  const { t } = useI18n();
  const container = useRef<HTMLSpanElement>(null);
  async function copy() {
    try {
      await writeToClipboard(value, container.current ?? document.body);
      shopify.toast.show(t("copy.done"));
    } catch {
      shopify.toast.show(t("copy.failed"), { isError: true });
    }
  }
  return (
    <span ref={container}>
      <Button onClick={copy} accessibilityLabel={accessibilityLabel}>
        {t("copy.button")}
      </Button>
    </span>
  );
}

/** Chromium's view of the frame's permissions policy (what the admin's iframe `allow` grants). */
type WithFeaturePolicy = Document & { featurePolicy?: { allowsFeature(feature: string): boolean } };

async function writeToClipboard(text: string, near: HTMLElement) {
  // The clipboard API needs clipboard-write, which the admin framing the app may not grant to the frame
  // (Chromium then also logs a policy violation); the copy command works during a click either way.
  if ((document as WithFeaturePolicy).featurePolicy?.allowsFeature("clipboard-write") !== false) {
    try {
      await navigator.clipboard.writeText(text);
      return;
    } catch {
      // refused (no permission, document not focused): the copy command below
    }
  }
  // Beside the button rather than at the end of the body: inside a modal dialog, the rest of the page is inert.
  const area = document.createElement("textarea");
  area.value = text;
  area.readOnly = true;
  area.setAttribute("aria-hidden", "true");
  area.style.position = "fixed";
  area.style.opacity = "0";
  near.append(area);
  area.select();
  const copied = document.execCommand("copy");
  area.remove();
  if (!copied) throw new Error("the browser refused to copy");
}
