import { BlockStack, InlineGrid, Text } from "@shopify/polaris";
import { useI18n } from "~/i18n/i18n-context";

interface FigureOf {
  label: string;
  /** A count (formatted for the admin's language here), or a figure formatted already (an amount of money). */
  value: number | string;
  /** A subdued line under the figure: what it counts, or the rest of it (other currencies). */
  hint?: string;
}

/** A row of headline figures (the Home page's usage, the Analytics page's totals): each a label over its value. */
export function FigureGrid({ figures }: { figures: ReadonlyArray<FigureOf> }) {
  const { number } = useI18n();
  const count = figures.length;
  return (
    <InlineGrid columns={{ xs: 1, sm: count > 3 ? 2 : count, md: count }} gap="400">
      {figures.map((figure) => (
        <BlockStack key={figure.label} gap="100">
          <Text as="p" tone="subdued">
            {figure.label}
          </Text>
          <Text as="p" variant="headingXl">
            {typeof figure.value === "number" ? number(figure.value) : figure.value}
          </Text>
          {figure.hint ? (
            <Text as="p" tone="subdued" variant="bodySm">
              {figure.hint}
            </Text>
          ) : null}
        </BlockStack>
      ))}
    </InlineGrid>
  );
}
