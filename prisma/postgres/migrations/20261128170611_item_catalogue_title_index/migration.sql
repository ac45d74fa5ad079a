-- DropIndex
DROP INDEX "Item_shopId_productId_idx";

-- CreateIndex
CREATE INDEX "Item_shopId_productId_catalogueTitleAt_id_idx" ON "Item"("shopId", "productId", "catalogueTitleAt", "id");

