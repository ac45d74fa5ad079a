-- AlterTable
ALTER TABLE "Shop" ADD COLUMN "uninstallSignedAt" DATETIME;

