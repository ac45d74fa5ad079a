-- AlterTable
ALTER TABLE "Item" ADD COLUMN "lowStockAlertedAt" DATETIME;
ALTER TABLE "Item" ADD COLUMN "priceSeenMinor" INTEGER;

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
    "readAt" DATETIME NOT NULL,

    PRIMARY KEY ("shopId", "variantId"),
    CONSTRAINT "CatalogueVariant_shopId_fkey" FOREIGN KEY ("shopId") REFERENCES "Shop" ("id") ON DELETE CASCADE ON UPDATE CASCADE
);

-- CreateTable
CREATE TABLE "ProductRefresh" (
    "shopId" TEXT NOT NULL,
    "productId" TEXT NOT NULL,
    "requestedAt" DATETIME NOT NULL,

    PRIMARY KEY ("shopId", "productId"),
    CONSTRAINT "ProductRefresh_shopId_fkey" FOREIGN KEY ("shopId") REFERENCES "Shop" ("id") ON DELETE CASCADE ON UPDATE CASCADE
);

-- CreateTable
CREATE TABLE "Alert" (
    "id" TEXT NOT NULL PRIMARY KEY,
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
    "createdAt" DATETIME NOT NULL,
    "clickedAt" DATETIME,
    "flowState" TEXT,
    "flowError" TEXT,
    "webhookEvent" BOOLEAN NOT NULL DEFAULT false,
    CONSTRAINT "Alert_shopId_fkey" FOREIGN KEY ("shopId") REFERENCES "Shop" ("id") ON DELETE CASCADE ON UPDATE CASCADE,
    CONSTRAINT "Alert_messageId_fkey" FOREIGN KEY ("messageId") REFERENCES "AlertMessage" ("id") ON DELETE SET NULL ON UPDATE CASCADE
);

-- CreateTable
CREATE TABLE "AlertMessage" (
    "id" TEXT NOT NULL PRIMARY KEY,
    "shopId" TEXT NOT NULL,
    "customerId" TEXT NOT NULL,
    "state" TEXT NOT NULL DEFAULT 'pending',
    "open" BOOLEAN DEFAULT true,
    "dueAt" DATETIME NOT NULL,
    "attempts" INTEGER NOT NULL DEFAULT 0,
    "leaseUntil" DATETIME,
    "sentAt" DATETIME,
    "error" TEXT,
    "createdAt" DATETIME NOT NULL,
    CONSTRAINT "AlertMessage_shopId_fkey" FOREIGN KEY ("shopId") REFERENCES "Shop" ("id") ON DELETE CASCADE ON UPDATE CASCADE
);

-- CreateTable
CREATE TABLE "AlertSuppression" (
    "shopId" TEXT NOT NULL,
    "customerId" TEXT NOT NULL,
    "reason" TEXT NOT NULL,
    "detail" TEXT,
    "createdAt" DATETIME NOT NULL,

    PRIMARY KEY ("shopId", "customerId"),
    CONSTRAINT "AlertSuppression_shopId_fkey" FOREIGN KEY ("shopId") REFERENCES "Shop" ("id") ON DELETE CASCADE ON UPDATE CASCADE
);

-- CreateTable
CREATE TABLE "FlowTriggerUse" (
    "shopId" TEXT NOT NULL,
    "trigger" TEXT NOT NULL,
    "enabled" BOOLEAN NOT NULL,
    "signedAt" DATETIME NOT NULL,
    "updatedAt" DATETIME NOT NULL,

    PRIMARY KEY ("shopId", "trigger"),
    CONSTRAINT "FlowTriggerUse_shopId_fkey" FOREIGN KEY ("shopId") REFERENCES "Shop" ("id") ON DELETE CASCADE ON UPDATE CASCADE
);

-- RedefineTables
PRAGMA defer_foreign_keys=ON;
PRAGMA foreign_keys=OFF;
CREATE TABLE "new_Shop" (
    "id" TEXT NOT NULL PRIMARY KEY,
    "domain" TEXT NOT NULL,
    "plan" TEXT NOT NULL DEFAULT 'FREE',
    "planUpdatedAt" DATETIME NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "installedAt" DATETIME NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "uninstalledAt" DATETIME,
    "uninstallSignedAt" DATETIME,
    "sharePageConfirmedAt" DATETIME,
    "metafieldBackfillAt" DATETIME,
    "settings" TEXT NOT NULL DEFAULT '{}',
    "alertSettings" TEXT NOT NULL DEFAULT '{}',
    "smtpPasswordSealed" TEXT,
    "publicKey" TEXT NOT NULL,
    "createdAt" DATETIME NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updatedAt" DATETIME NOT NULL
);
INSERT INTO "new_Shop" ("createdAt", "domain", "id", "installedAt", "metafieldBackfillAt", "plan", "planUpdatedAt", "publicKey", "settings", "sharePageConfirmedAt", "uninstallSignedAt", "uninstalledAt", "updatedAt") SELECT "createdAt", "domain", "id", "installedAt", "metafieldBackfillAt", "plan", "planUpdatedAt", "publicKey", "settings", "sharePageConfirmedAt", "uninstallSignedAt", "uninstalledAt", "updatedAt" FROM "Shop";
DROP TABLE "Shop";
ALTER TABLE "new_Shop" RENAME TO "Shop";
CREATE UNIQUE INDEX "Shop_domain_key" ON "Shop"("domain");
CREATE UNIQUE INDEX "Shop_publicKey_key" ON "Shop"("publicKey");
PRAGMA foreign_keys=ON;
PRAGMA defer_foreign_keys=OFF;

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

