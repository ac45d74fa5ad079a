-- CreateTable
CREATE TABLE "CustomerMetafieldSync" (
    "shopId" TEXT NOT NULL,
    "customerId" TEXT NOT NULL,
    "changedAt" TIMESTAMP(3) NOT NULL,
    "syncedAt" TIMESTAMP(3),
    "error" TEXT,

    CONSTRAINT "CustomerMetafieldSync_pkey" PRIMARY KEY ("shopId","customerId")
);

-- CreateIndex
CREATE INDEX "CustomerMetafieldSync_syncedAt_shopId_idx" ON "CustomerMetafieldSync"("syncedAt", "shopId");

-- AddForeignKey
ALTER TABLE "CustomerMetafieldSync" ADD CONSTRAINT "CustomerMetafieldSync_shopId_fkey" FOREIGN KEY ("shopId") REFERENCES "Shop"("id") ON DELETE CASCADE ON UPDATE CASCADE;

