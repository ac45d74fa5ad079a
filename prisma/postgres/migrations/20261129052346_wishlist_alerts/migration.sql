-- AlterTable
ALTER TABLE "Shop" ADD COLUMN     "alertSettings" TEXT NOT NULL DEFAULT '{}',
ADD COLUMN     "smtpPasswordSealed" TEXT;

-- AlterTable
ALTER TABLE "Item" ADD COLUMN     "lowStockAlertedAt" TIMESTAMP(3),
ADD COLUMN     "priceSeenMinor" INTEGER;

-- CreateTable
CREATE TABLE "CatalogueVariant" (
    "shopId" TEXT NOT NULL,
    "variantId" TEXT NOT NULL,
    "productId" TEXT NOT NULL,
    "inventoryItemId" TEXT,
    "title" TEXT NOT NULL,
    "priceMinor" INTEGER NOT NULL,
    "compareAtMinor" INTEGER,
    "currency" TEXT NOT NULL,
    "available" BOOLEAN NOT NULL,
    "inventoryQuantity" INTEGER,
    "imageUrl" TEXT,
    "readAt" TIMESTAMP(3) NOT NULL,

    CONSTRAINT "CatalogueVariant_pkey" PRIMARY KEY ("shopId","variantId")
);

-- CreateTable
CREATE TABLE "ProductRefresh" (
    "shopId" TEXT NOT NULL,
    "productId" TEXT NOT NULL,
    "requestedAt" TIMESTAMP(3) NOT NULL,

    CONSTRAINT "ProductRefresh_pkey" PRIMARY KEY ("shopId","productId")
);

-- CreateTable
CREATE TABLE "Alert" (
    "id" TEXT NOT NULL,
    "shopId" TEXT NOT NULL,
    "customerId" TEXT NOT NULL,
    "listId" TEXT NOT NULL,
    "itemId" TEXT NOT NULL,
    "productId" TEXT NOT NULL,
    "variantId" TEXT NOT NULL,
    "kind" TEXT NOT NULL,
    "oldPriceMinor" INTEGER,
    "newPriceMinor" INTEGER,
    "quantity" INTEGER,
    "currency" TEXT NOT NULL,
    "changeKey" TEXT NOT NULL,
    "messageId" TEXT,
    "createdAt" TIMESTAMP(3) NOT NULL,
    "clickedAt" TIMESTAMP(3),
    "flowState" TEXT,
    "flowError" TEXT,
    "webhookEvent" BOOLEAN NOT NULL DEFAULT false,

    CONSTRAINT "Alert_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "AlertMessage" (
    "id" TEXT NOT NULL,
    "shopId" TEXT NOT NULL,
    "customerId" TEXT NOT NULL,
    "state" TEXT NOT NULL DEFAULT 'pending',
    "open" BOOLEAN DEFAULT true,
    "dueAt" TIMESTAMP(3) NOT NULL,
    "attempts" INTEGER NOT NULL DEFAULT 0,
    "leaseUntil" TIMESTAMP(3),
    "sentAt" TIMESTAMP(3),
    "error" TEXT,
    "createdAt" TIMESTAMP(3) NOT NULL,

    CONSTRAINT "AlertMessage_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "AlertSuppression" (
    "shopId" TEXT NOT NULL,
    "customerId" TEXT NOT NULL,
    "reason" TEXT NOT NULL,
    "detail" TEXT,
    "createdAt" TIMESTAMP(3) NOT NULL,

    CONSTRAINT "AlertSuppression_pkey" PRIMARY KEY ("shopId","customerId")
);

-- CreateTable
CREATE TABLE "FlowTriggerUse" (
    "shopId" TEXT NOT NULL,
    "trigger" TEXT NOT NULL,
    "enabled" BOOLEAN NOT NULL,
    "signedAt" TIMESTAMP(3) NOT NULL,
    "updatedAt" TIMESTAMP(3) NOT NULL,

    CONSTRAINT "FlowTriggerUse_pkey" PRIMARY KEY ("shopId","trigger")
);

-- CreateIndex
CREATE INDEX "CatalogueVariant_shopId_productId_idx" ON "CatalogueVariant"("shopId", "productId");

-- CreateIndex
CREATE INDEX "CatalogueVariant_shopId_inventoryItemId_idx" ON "CatalogueVariant"("shopId", "inventoryItemId");

-- CreateIndex
CREATE INDEX "CatalogueVariant_readAt_idx" ON "CatalogueVariant"("readAt");

-- CreateIndex
CREATE INDEX "ProductRefresh_requestedAt_idx" ON "ProductRefresh"("requestedAt");

-- CreateIndex
CREATE INDEX "Alert_shopId_customerId_productId_kind_createdAt_idx" ON "Alert"("shopId", "customerId", "productId", "kind", "createdAt");

-- CreateIndex
CREATE INDEX "Alert_shopId_createdAt_idx" ON "Alert"("shopId", "createdAt");

-- CreateIndex
CREATE INDEX "Alert_createdAt_idx" ON "Alert"("createdAt");

-- CreateIndex
CREATE INDEX "Alert_messageId_idx" ON "Alert"("messageId");

-- CreateIndex
CREATE INDEX "Alert_shopId_flowState_idx" ON "Alert"("shopId", "flowState");

-- CreateIndex
CREATE UNIQUE INDEX "Alert_shopId_customerId_productId_kind_changeKey_key" ON "Alert"("shopId", "customerId", "productId", "kind", "changeKey");

-- CreateIndex
CREATE INDEX "AlertMessage_shopId_state_dueAt_idx" ON "AlertMessage"("shopId", "state", "dueAt");

-- CreateIndex
CREATE INDEX "AlertMessage_state_dueAt_idx" ON "AlertMessage"("state", "dueAt");

-- CreateIndex
CREATE INDEX "AlertMessage_shopId_customerId_sentAt_idx" ON "AlertMessage"("shopId", "customerId", "sentAt");

-- CreateIndex
CREATE UNIQUE INDEX "AlertMessage_shopId_customerId_open_key" ON "AlertMessage"("shopId", "customerId", "open");

-- CreateIndex
CREATE INDEX "AlertSuppression_shopId_createdAt_idx" ON "AlertSuppression"("shopId", "createdAt");

-- AddForeignKey
ALTER TABLE "CatalogueVariant" ADD CONSTRAINT "CatalogueVariant_shopId_fkey" FOREIGN KEY ("shopId") REFERENCES "Shop"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "ProductRefresh" ADD CONSTRAINT "ProductRefresh_shopId_fkey" FOREIGN KEY ("shopId") REFERENCES "Shop"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "Alert" ADD CONSTRAINT "Alert_shopId_fkey" FOREIGN KEY ("shopId") REFERENCES "Shop"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "Alert" ADD CONSTRAINT "Alert_messageId_fkey" FOREIGN KEY ("messageId") REFERENCES "AlertMessage"("id") ON DELETE SET NULL ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "AlertMessage" ADD CONSTRAINT "AlertMessage_shopId_fkey" FOREIGN KEY ("shopId") REFERENCES "Shop"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "AlertSuppression" ADD CONSTRAINT "AlertSuppression_shopId_fkey" FOREIGN KEY ("shopId") REFERENCES "Shop"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "FlowTriggerUse" ADD CONSTRAINT "FlowTriggerUse_shopId_fkey" FOREIGN KEY ("shopId") REFERENCES "Shop"("id") ON DELETE CASCADE ON UPDATE CASCADE;

