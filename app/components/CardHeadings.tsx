import { BlockStack, Card, Text, type BlockStackProps } from "@shopify/polaris";
import type { ReactNode } from "react";

/** A card's heading with a subdued line under it that says what the card holds or how far it has got. */
export function HeadingWithHint({
  title,
  gap = "100",
  children,
}: {
  title: string;
  gap?: BlockStackProps["gap"];
  children: ReactNode;
}) {
  return (
    <BlockStack gap={gap}>
      <Text as="h2" variant="headingMd">
        {title}
      </Text>
      <Text as="p" tone="subdued">
        {children}
      </Text>
    </BlockStack>
  );
}

/** A card that opens with its heading, its content below. */
export function HeadedCard({ title, children }: { title: string; children: ReactNode }) {
  return (
    <Card>
      <BlockStack gap="300">
        <Text as="h2" variant="headingMd">
          {title}
        </Text>
        {children}
      </BlockStack>
    </Card>
  );
}
