-- AlterTable: the column is added empty, each item then takes its list's owner (decision 055).
ALTER TABLE "Item" ADD COLUMN     "ownerKey" TEXT NOT NULL DEFAULT '';

UPDATE "Item" SET "ownerKey" = coalesce('c:' || "List"."customerId", 'a:' || "List"."anonymousId", '')
FROM "List" WHERE "List"."id" = "Item"."listId";

ALTER TABLE "Item" ALTER COLUMN "ownerKey" DROP DEFAULT;

-- CreateIndex
CREATE INDEX "Item_shopId_productId_ownerKey_variantId_purchasedAt_idx" ON "Item"("shopId", "productId", "ownerKey", "variantId", "purchasedAt");
