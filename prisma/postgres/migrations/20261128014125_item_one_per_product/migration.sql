-- A list holds a product once, with or without a variant (docs/decisions/032-one-item-per-product.md).
-- DropIndex
DROP INDEX "Item_listId_productId_variantId_key";

-- Rows of one product in one list become one: the earliest saved (then the smallest id) stays, and takes
-- the variant of the earliest of its duplicates that has one when it has none. The old index is gone
-- first, so the variant it takes cannot collide with a duplicate's while both still exist.
UPDATE "Item" SET "variantId" = (
  SELECT d."variantId" FROM "Item" d
  WHERE d."listId" = "Item"."listId" AND d."productId" = "Item"."productId" AND d."variantId" <> ''
  ORDER BY d."addedAt", d."id" LIMIT 1
)
WHERE "variantId" = '' AND EXISTS (
  SELECT 1 FROM "Item" d
  WHERE d."listId" = "Item"."listId" AND d."productId" = "Item"."productId" AND d."variantId" <> ''
);

DELETE FROM "Item" WHERE EXISTS (
  SELECT 1 FROM "Item" k
  WHERE k."listId" = "Item"."listId" AND k."productId" = "Item"."productId"
    AND (k."addedAt" < "Item"."addedAt" OR (k."addedAt" = "Item"."addedAt" AND k."id" < "Item"."id"))
);

-- CreateIndex
CREATE UNIQUE INDEX "Item_listId_productId_key" ON "Item"("listId", "productId");
