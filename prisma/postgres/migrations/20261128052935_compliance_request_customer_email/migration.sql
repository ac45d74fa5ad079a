-- AlterTable
ALTER TABLE "ComplianceRequest" ADD COLUMN     "customerEmailSealed" TEXT;

