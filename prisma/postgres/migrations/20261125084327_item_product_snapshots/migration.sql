-- AlterTable
ALTER TABLE "Item" ADD COLUMN     "productLookupAt" TIMESTAMP(3),
ADD COLUMN     "unavailableAt" TIMESTAMP(3);

-- CreateIndex
CREATE INDEX "Item_productLookupAt_shopId_idx" ON "Item"("productLookupAt", "shopId");


-- Items saved without a title before this migration are due for their first lookup (decision 022), in UTC
-- whatever the server time zone.
UPDATE "Item" SET "productLookupAt" = (now() AT TIME ZONE 'UTC') WHERE "titleSnapshot" = '';
