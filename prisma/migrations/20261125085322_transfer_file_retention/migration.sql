-- AlterTable
ALTER TABLE "TransferJob" ADD COLUMN "resultDeletedAt" DATETIME;

-- AlterTable
ALTER TABLE "Upload" ADD COLUMN "fileDeletedAt" DATETIME;

-- CreateIndex
CREATE INDEX "TransferJob_resultDeletedAt_finishedAt_idx" ON "TransferJob"("resultDeletedAt", "finishedAt");

-- CreateIndex
CREATE INDEX "Upload_fileDeletedAt_createdAt_idx" ON "Upload"("fileDeletedAt", "createdAt");

