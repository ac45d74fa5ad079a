-- AlterTable
ALTER TABLE "Item" ADD COLUMN "catalogueTitleAt" DATETIME;

