-- CreateIndex
CREATE INDEX "WebhookDeliveryDue_shopId_idx" ON "WebhookDeliveryDue"("shopId");

-- CreateIndex
CREATE INDEX "TransferJob_shopId_status_idx" ON "TransferJob"("shopId", "status");

