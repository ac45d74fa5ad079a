import { BlockStack, Card, InlineStack, Text } from "@shopify/polaris";
import { useId, type ReactNode } from "react";

/**
 * A card named by its heading: a region that assistive technology lists by that name (and that tests find
 * by it), with an optional action beside the heading.
 */
export function LabelledCard({ title, action, children }: { title: string; action?: ReactNode; children: ReactNode }) {
  const headingId = useId();
  return (
    <Card>
      <section aria-labelledby={headingId}>
        <BlockStack gap="400">
          <InlineStack align="space-between" blockAlign="center" gap="200">
            <Text as="h2" variant="headingMd" id={headingId}>
              {title}
            </Text>
            {action}
          </InlineStack>
          {children}
        </BlockStack>
      </section>
    </Card>
  );
}
