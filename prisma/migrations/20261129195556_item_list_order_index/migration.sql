-- DropIndex
DROP INDEX "Item_listId_addedAt_idx";

-- CreateIndex
CREATE INDEX "Item_listId_addedAt_id_idx" ON "Item"("listId", "addedAt", "id");

