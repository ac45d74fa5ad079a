-- CreateTable
CREATE TABLE "HeadlessOrigin" (
    "shopId" TEXT NOT NULL,
    "origin" TEXT NOT NULL,

    CONSTRAINT "HeadlessOrigin_pkey" PRIMARY KEY ("shopId","origin")
);

-- CreateIndex
CREATE INDEX "HeadlessOrigin_origin_idx" ON "HeadlessOrigin"("origin");

-- AddForeignKey
ALTER TABLE "HeadlessOrigin" ADD CONSTRAINT "HeadlessOrigin_shopId_fkey" FOREIGN KEY ("shopId") REFERENCES "Shop"("id") ON DELETE CASCADE ON UPDATE CASCADE;

