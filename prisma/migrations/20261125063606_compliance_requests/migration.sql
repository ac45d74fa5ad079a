-- CreateTable
CREATE TABLE "ComplianceRequest" (
    "id" TEXT NOT NULL PRIMARY KEY,
    "shopId" TEXT NOT NULL,
    "topic" TEXT NOT NULL,
    "customerId" TEXT,
    "platformRequestId" TEXT,
    "status" TEXT NOT NULL DEFAULT 'queued',
    "resultKey" TEXT,
    "summary" TEXT,
    "error" TEXT,
    "receivedAt" DATETIME NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "startedAt" DATETIME,
    "finishedAt" DATETIME,
    CONSTRAINT "ComplianceRequest_shopId_fkey" FOREIGN KEY ("shopId") REFERENCES "Shop" ("id") ON DELETE CASCADE ON UPDATE CASCADE
);

-- CreateIndex
CREATE INDEX "ComplianceRequest_shopId_topic_id_idx" ON "ComplianceRequest"("shopId", "topic", "id");

-- CreateIndex
CREATE INDEX "ComplianceRequest_status_receivedAt_idx" ON "ComplianceRequest"("status", "receivedAt");

