-- AlterTable
ALTER TABLE "Item" ADD COLUMN     "catalogueTitleAt" TIMESTAMP(3);

