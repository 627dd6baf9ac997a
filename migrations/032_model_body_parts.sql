-- The flight recorder's bodies in parts: the RDS Data API reads back no row over 64 KB (aws-facts:
-- data-api.max-row-bytes), and a model may write more than that in one reply. Each body is stored as parts of at most
-- 8,192 characters (32 KiB of UTF-8 at most), part 0 first, and joined in order when read
-- (core/store/model-bodies-sql.ts). A body stored before is cut here by the same rule, so every writer agrees.
ALTER TABLE model_bodies DROP CONSTRAINT model_bodies_pkey;
ALTER TABLE model_bodies ADD COLUMN part integer NOT NULL DEFAULT 0 CHECK (part >= 0);
ALTER TABLE model_bodies ADD PRIMARY KEY (sha256, part);

INSERT INTO model_bodies (sha256, part, body)
SELECT b.sha256, p, substr(b.body, p * 8192 + 1, 8192)
FROM model_bodies b, generate_series(1, (char_length(b.body) - 1) / 8192) AS p
WHERE b.part = 0 AND char_length(b.body) > 8192;
UPDATE model_bodies SET body = left(body, 8192) WHERE part = 0 AND char_length(body) > 8192;
