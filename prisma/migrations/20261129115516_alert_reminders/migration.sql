-- AlterTable
ALTER TABLE "Item" ADD COLUMN "remindedAt" DATETIME;

-- CreateTable
CREATE TABLE "ReminderScan" (
    "shopId" TEXT NOT NULL PRIMARY KEY,
    "itemAddedAt" DATETIME,
    "itemId" TEXT,
    "reminderAt" DATETIME,
    "reminderId" TEXT,
    "updatedAt" DATETIME NOT NULL,
    CONSTRAINT "ReminderScan_shopId_fkey" FOREIGN KEY ("shopId") REFERENCES "Shop" ("id") ON DELETE CASCADE ON UPDATE CASCADE
);

-- CreateIndex
CREATE INDEX "Item_shopId_addedAt_id_idx" ON "Item"("shopId", "addedAt", "id");

-- CreateIndex
CREATE INDEX "Alert_shopId_kind_createdAt_id_idx" ON "Alert"("shopId", "kind", "createdAt", "id");

