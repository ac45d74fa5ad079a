-- CreateTable
CREATE TABLE "WebhookDeliveryDue" (
    "eventId" TEXT NOT NULL,
    "endpointId" TEXT NOT NULL,
    "shopId" TEXT NOT NULL,
    "dueAt" DATETIME NOT NULL,
    "attemptsMade" INTEGER NOT NULL DEFAULT 0,

    PRIMARY KEY ("eventId", "endpointId"),
    CONSTRAINT "WebhookDeliveryDue_eventId_fkey" FOREIGN KEY ("eventId") REFERENCES "Event" ("id") ON DELETE CASCADE ON UPDATE CASCADE,
    CONSTRAINT "WebhookDeliveryDue_endpointId_fkey" FOREIGN KEY ("endpointId") REFERENCES "WebhookEndpoint" ("id") ON DELETE CASCADE ON UPDATE CASCADE
);

-- CreateIndex
CREATE INDEX "WebhookDeliveryDue_dueAt_idx" ON "WebhookDeliveryDue"("dueAt");

