-- AlterTable
ALTER TABLE "Shop" ADD COLUMN     "uninstallSignedAt" TIMESTAMP(3);

