-- CreateTable
CREATE TABLE "PlatformWebhook" (
    "id" TEXT NOT NULL PRIMARY KEY,
    "topic" TEXT NOT NULL,
    "shopDomain" TEXT NOT NULL,
    "receivedAt" DATETIME NOT NULL DEFAULT CURRENT_TIMESTAMP
);

-- CreateIndex
CREATE INDEX "PlatformWebhook_receivedAt_idx" ON "PlatformWebhook"("receivedAt");

