-- AlterTable
ALTER TABLE "Item" ADD COLUMN     "remindedAt" TIMESTAMP(3);

-- CreateTable
CREATE TABLE "ReminderScan" (
    "shopId" TEXT NOT NULL,
    "itemAddedAt" TIMESTAMP(3),
    "itemId" TEXT,
    "reminderAt" TIMESTAMP(3),
    "reminderId" TEXT,
    "updatedAt" TIMESTAMP(3) NOT NULL,

    CONSTRAINT "ReminderScan_pkey" PRIMARY KEY ("shopId")
);

-- CreateIndex
CREATE INDEX "Item_shopId_addedAt_id_idx" ON "Item"("shopId", "addedAt", "id");

-- CreateIndex
CREATE INDEX "Alert_shopId_kind_createdAt_id_idx" ON "Alert"("shopId", "kind", "createdAt", "id");

-- AddForeignKey
ALTER TABLE "ReminderScan" ADD CONSTRAINT "ReminderScan_shopId_fkey" FOREIGN KEY ("shopId") REFERENCES "Shop"("id") ON DELETE CASCADE ON UPDATE CASCADE;

