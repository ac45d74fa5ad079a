-- CreateTable
CREATE TABLE "WebhookDeliveryDue" (
    "eventId" TEXT NOT NULL,
    "endpointId" TEXT NOT NULL,
    "shopId" TEXT NOT NULL,
    "dueAt" TIMESTAMP(3) NOT NULL,
    "attemptsMade" INTEGER NOT NULL DEFAULT 0,

    CONSTRAINT "WebhookDeliveryDue_pkey" PRIMARY KEY ("eventId","endpointId")
);

-- CreateIndex
CREATE INDEX "WebhookDeliveryDue_dueAt_idx" ON "WebhookDeliveryDue"("dueAt");

-- AddForeignKey
ALTER TABLE "WebhookDeliveryDue" ADD CONSTRAINT "WebhookDeliveryDue_eventId_fkey" FOREIGN KEY ("eventId") REFERENCES "Event"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "WebhookDeliveryDue" ADD CONSTRAINT "WebhookDeliveryDue_endpointId_fkey" FOREIGN KEY ("endpointId") REFERENCES "WebhookEndpoint"("id") ON DELETE CASCADE ON UPDATE CASCADE;

