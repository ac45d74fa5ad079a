-- AlterTable
ALTER TABLE "TransferJob" ADD COLUMN     "resultDeletedAt" TIMESTAMP(3);

-- AlterTable
ALTER TABLE "Upload" ADD COLUMN     "fileDeletedAt" TIMESTAMP(3);

-- CreateIndex
CREATE INDEX "TransferJob_resultDeletedAt_finishedAt_idx" ON "TransferJob"("resultDeletedAt", "finishedAt");

-- CreateIndex
CREATE INDEX "Upload_fileDeletedAt_createdAt_idx" ON "Upload"("fileDeletedAt", "createdAt");

