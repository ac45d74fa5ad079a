import { BlockStack, InlineGrid, Text } from "@shopify/polaris";
import { useI18n } from "~/i18n/i18n-context";

/** A row of headline counts (the Home page's usage, the Analytics page's totals): each a label over its number. */
export function FigureGrid({ figures }: { figures: ReadonlyArray<{ label: string; value: number }> }) {
  const { number } = useI18n();
  return (
    <InlineGrid columns={{ xs: 1, sm: 3 }} gap="400">
      {figures.map((figure) => (
        <BlockStack key={figure.label} gap="100">
          <Text as="p" tone="subdued">
            {figure.label}
          </Text>
          <Text as="p" variant="headingXl">
            {number(figure.value)}
          </Text>
        </BlockStack>
      ))}
    </InlineGrid>
  );
}
