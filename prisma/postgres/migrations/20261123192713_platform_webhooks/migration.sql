-- CreateTable
CREATE TABLE "PlatformWebhook" (
    "id" TEXT NOT NULL,
    "topic" TEXT NOT NULL,
    "shopDomain" TEXT NOT NULL,
    "receivedAt" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "PlatformWebhook_pkey" PRIMARY KEY ("id")
);

-- CreateIndex
CREATE INDEX "PlatformWebhook_receivedAt_idx" ON "PlatformWebhook"("receivedAt");

