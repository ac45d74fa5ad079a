-- CreateTable
CREATE TABLE "HeadlessOrigin" (
    "shopId" TEXT NOT NULL,
    "origin" TEXT NOT NULL,

    PRIMARY KEY ("shopId", "origin"),
    CONSTRAINT "HeadlessOrigin_shopId_fkey" FOREIGN KEY ("shopId") REFERENCES "Shop" ("id") ON DELETE CASCADE ON UPDATE CASCADE
);

-- CreateIndex
CREATE INDEX "HeadlessOrigin_origin_idx" ON "HeadlessOrigin"("origin");

