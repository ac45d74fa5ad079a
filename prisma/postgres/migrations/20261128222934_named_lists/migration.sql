-- AlterTable
ALTER TABLE "List" ADD COLUMN     "nameKey" TEXT;

-- AlterTable
ALTER TABLE "Item" ADD COLUMN     "note" TEXT NOT NULL DEFAULT '',
ADD COLUMN     "quantity" INTEGER NOT NULL DEFAULT 1;

-- Backfill: every live list is an owner's default named "Wishlist" until now (docs/decisions/046-named-lists.md).
UPDATE "List" SET "nameKey" = lower(trim("name")) WHERE "retiredAt" IS NULL;

-- CreateIndex
CREATE UNIQUE INDEX "List_shopId_customerId_nameKey_key" ON "List"("shopId", "customerId", "nameKey");

-- CreateIndex
CREATE UNIQUE INDEX "List_shopId_anonymousId_nameKey_key" ON "List"("shopId", "anonymousId", "nameKey");

