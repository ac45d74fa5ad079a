-- CreateTable
CREATE TABLE "CustomerMetafieldSync" (
    "shopId" TEXT NOT NULL,
    "customerId" TEXT NOT NULL,
    "changedAt" DATETIME NOT NULL,
    "syncedAt" DATETIME,
    "error" TEXT,

    PRIMARY KEY ("shopId", "customerId"),
    CONSTRAINT "CustomerMetafieldSync_shopId_fkey" FOREIGN KEY ("shopId") REFERENCES "Shop" ("id") ON DELETE CASCADE ON UPDATE CASCADE
);

-- CreateIndex
CREATE INDEX "CustomerMetafieldSync_syncedAt_shopId_idx" ON "CustomerMetafieldSync"("syncedAt", "shopId");

