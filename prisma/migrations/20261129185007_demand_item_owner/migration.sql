-- RedefineTables
PRAGMA defer_foreign_keys=ON;
PRAGMA foreign_keys=OFF;
CREATE TABLE "new_Item" (
    "id" TEXT NOT NULL PRIMARY KEY,
    "listId" TEXT NOT NULL,
    "shopId" TEXT NOT NULL,
    "productId" TEXT NOT NULL,
    "variantId" TEXT NOT NULL DEFAULT '',
    "handle" TEXT NOT NULL,
    "titleSnapshot" TEXT NOT NULL DEFAULT '',
    "addedAt" DATETIME NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "productLookupAt" DATETIME,
    "catalogueTitleAt" DATETIME,
    "unavailableAt" DATETIME,
    "note" TEXT NOT NULL DEFAULT '',
    "quantity" INTEGER NOT NULL DEFAULT 1,
    "priceSeenMinor" INTEGER,
    "lowStockAlertedAt" DATETIME,
    "purchasedAt" DATETIME,
    "remindedAt" DATETIME,
    "ownerKey" TEXT NOT NULL,
    CONSTRAINT "Item_listId_fkey" FOREIGN KEY ("listId") REFERENCES "List" ("id") ON DELETE CASCADE ON UPDATE CASCADE,
    CONSTRAINT "Item_shopId_fkey" FOREIGN KEY ("shopId") REFERENCES "Shop" ("id") ON DELETE CASCADE ON UPDATE CASCADE
);
-- Each item takes its list's owner (decision 055).
INSERT INTO "new_Item" ("addedAt", "catalogueTitleAt", "handle", "id", "listId", "lowStockAlertedAt", "note", "priceSeenMinor", "productId", "productLookupAt", "purchasedAt", "quantity", "remindedAt", "shopId", "titleSnapshot", "unavailableAt", "variantId", "ownerKey") SELECT "Item"."addedAt", "Item"."catalogueTitleAt", "Item"."handle", "Item"."id", "Item"."listId", "Item"."lowStockAlertedAt", "Item"."note", "Item"."priceSeenMinor", "Item"."productId", "Item"."productLookupAt", "Item"."purchasedAt", "Item"."quantity", "Item"."remindedAt", "Item"."shopId", "Item"."titleSnapshot", "Item"."unavailableAt", "Item"."variantId", coalesce('c:' || "List"."customerId", 'a:' || "List"."anonymousId", '') FROM "Item" JOIN "List" ON "List"."id" = "Item"."listId";
DROP TABLE "Item";
ALTER TABLE "new_Item" RENAME TO "Item";
CREATE INDEX "Item_listId_addedAt_idx" ON "Item"("listId", "addedAt");
CREATE INDEX "Item_shopId_id_idx" ON "Item"("shopId", "id");
CREATE INDEX "Item_shopId_productId_catalogueTitleAt_id_idx" ON "Item"("shopId", "productId", "catalogueTitleAt", "id");
CREATE INDEX "Item_shopId_productId_ownerKey_variantId_purchasedAt_idx" ON "Item"("shopId", "productId", "ownerKey", "variantId", "purchasedAt");
CREATE INDEX "Item_productLookupAt_shopId_idx" ON "Item"("productLookupAt", "shopId");
CREATE INDEX "Item_shopId_addedAt_id_idx" ON "Item"("shopId", "addedAt", "id");
CREATE UNIQUE INDEX "Item_listId_productId_key" ON "Item"("listId", "productId");
PRAGMA foreign_keys=ON;
PRAGMA defer_foreign_keys=OFF;

