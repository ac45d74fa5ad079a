-- AlterTable
ALTER TABLE "Item" ADD COLUMN "productLookupAt" DATETIME;
ALTER TABLE "Item" ADD COLUMN "unavailableAt" DATETIME;

-- CreateIndex
CREATE INDEX "Item_productLookupAt_shopId_idx" ON "Item"("productLookupAt", "shopId");


-- Items saved without a title before this migration are due for their first lookup (decision 022), in the
-- data layer timestamp form (ISO-8601 UTC with an explicit offset).
UPDATE "Item" SET "productLookupAt" = strftime('%Y-%m-%dT%H:%M:%f+00:00', 'now') WHERE "titleSnapshot" = '';
