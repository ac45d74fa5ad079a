-- CreateIndex
CREATE INDEX "TransferJob_status_createdAt_idx" ON "TransferJob"("status", "createdAt");

