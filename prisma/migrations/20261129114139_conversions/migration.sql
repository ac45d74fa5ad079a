-- AlterTable
ALTER TABLE "Item" ADD COLUMN "purchasedAt" DATETIME;

-- CreateTable
CREATE TABLE "Conversion" (
    "id" TEXT NOT NULL PRIMARY KEY,
    "shopId" TEXT NOT NULL,
    "orderId" TEXT NOT NULL,
    "lineItemId" TEXT NOT NULL,
    "customerId" TEXT,
    "anonymousId" TEXT,
    "productId" TEXT NOT NULL,
    "variantId" TEXT NOT NULL DEFAULT '',
    "quantity" INTEGER NOT NULL,
    "amountMinor" BIGINT NOT NULL,
    "currency" TEXT NOT NULL,
    "presentmentAmountMinor" BIGINT NOT NULL,
    "presentmentCurrency" TEXT NOT NULL,
    "savedAt" DATETIME NOT NULL,
    "orderedAt" DATETIME NOT NULL,
    "day" TEXT NOT NULL,
    "days" INTEGER NOT NULL,
    "source" TEXT NOT NULL DEFAULT '',
    "alertId" TEXT,
    "refundedQuantity" INTEGER NOT NULL DEFAULT 0,
    "refundedMinor" BIGINT NOT NULL DEFAULT 0,
    "presentmentRefundedMinor" BIGINT NOT NULL DEFAULT 0,
    "cancelledAt" DATETIME,
    "createdAt" DATETIME NOT NULL,
    CONSTRAINT "Conversion_shopId_fkey" FOREIGN KEY ("shopId") REFERENCES "Shop" ("id") ON DELETE CASCADE ON UPDATE CASCADE
);

-- CreateTable
CREATE TABLE "ConversionRefund" (
    "shopId" TEXT NOT NULL,
    "refundId" TEXT NOT NULL,
    "lineItemId" TEXT NOT NULL,
    "conversionId" TEXT NOT NULL,
    "quantity" INTEGER NOT NULL,
    "amountMinor" BIGINT NOT NULL,
    "presentmentAmountMinor" BIGINT NOT NULL,
    "createdAt" DATETIME NOT NULL,

    PRIMARY KEY ("shopId", "refundId", "lineItemId"),
    CONSTRAINT "ConversionRefund_conversionId_fkey" FOREIGN KEY ("conversionId") REFERENCES "Conversion" ("id") ON DELETE CASCADE ON UPDATE CASCADE
);

-- CreateTable
CREATE TABLE "DailyConversionStat" (
    "shopId" TEXT NOT NULL,
    "day" TEXT NOT NULL,
    "productId" TEXT NOT NULL,
    "source" TEXT NOT NULL,
    "currency" TEXT NOT NULL,
    "lines" INTEGER NOT NULL DEFAULT 0,
    "quantity" INTEGER NOT NULL DEFAULT 0,
    "revenueMinor" BIGINT NOT NULL DEFAULT 0,
    "refundedMinor" BIGINT NOT NULL DEFAULT 0,

    PRIMARY KEY ("shopId", "day", "productId", "source", "currency"),
    CONSTRAINT "DailyConversionStat_shopId_fkey" FOREIGN KEY ("shopId") REFERENCES "Shop" ("id") ON DELETE CASCADE ON UPDATE CASCADE
);

-- CreateTable
CREATE TABLE "DailyConversionOrder" (
    "shopId" TEXT NOT NULL,
    "day" TEXT NOT NULL,
    "orders" INTEGER NOT NULL DEFAULT 0,
    "cancelled" INTEGER NOT NULL DEFAULT 0,

    PRIMARY KEY ("shopId", "day"),
    CONSTRAINT "DailyConversionOrder_shopId_fkey" FOREIGN KEY ("shopId") REFERENCES "Shop" ("id") ON DELETE CASCADE ON UPDATE CASCADE
);

-- CreateTable
CREATE TABLE "DailyConversionDelay" (
    "shopId" TEXT NOT NULL,
    "day" TEXT NOT NULL,
    "days" INTEGER NOT NULL,
    "lines" INTEGER NOT NULL DEFAULT 0,

    PRIMARY KEY ("shopId", "day", "days"),
    CONSTRAINT "DailyConversionDelay_shopId_fkey" FOREIGN KEY ("shopId") REFERENCES "Shop" ("id") ON DELETE CASCADE ON UPDATE CASCADE
);

-- CreateIndex
CREATE INDEX "Conversion_shopId_orderedAt_idx" ON "Conversion"("shopId", "orderedAt");

-- CreateIndex
CREATE INDEX "Conversion_shopId_customerId_idx" ON "Conversion"("shopId", "customerId");

-- CreateIndex
CREATE INDEX "Conversion_shopId_anonymousId_idx" ON "Conversion"("shopId", "anonymousId");

-- CreateIndex
CREATE UNIQUE INDEX "Conversion_shopId_orderId_lineItemId_key" ON "Conversion"("shopId", "orderId", "lineItemId");

-- CreateIndex
CREATE INDEX "ConversionRefund_conversionId_idx" ON "ConversionRefund"("conversionId");

