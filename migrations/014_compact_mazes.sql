-- Every maze row fits the RDS Data API (issue 30): a row of a result set may be at most 64 KB ("Amazon RDS Data API
-- limitations", AuroraUserGuide/data-api.limitations.html), and a 201x201 maze's jsonb grid printed 121,609 bytes.
-- `cells` holds the same tiles at 2 bits a cell as base64 text (lambdas/maze/packed-grid.ts: cell i = y * width + x
-- at bits 2 * (i % 4) of byte i / 4): 13,468 characters at 201x201. Existing mazes are converted in place and checked
-- cell by cell before the jsonb grid is dropped; content_hash is not touched.

-- The grid as jsonb rows, grid[y][x], from cells: for reading a maze in SQL, and the check below. Over the Data API a
-- large maze's grid is again over 64 KB: read cells there.
CREATE FUNCTION maze_grid(packed text, w integer, h integer) RETURNS jsonb
LANGUAGE sql IMMUTABLE STRICT PARALLEL SAFE AS $$
  SELECT jsonb_agg(r.tiles ORDER BY r.y)
  FROM (SELECT y, jsonb_agg((get_byte(b.bytes, (y * w + x) / 4) >> (2 * ((y * w + x) % 4))) & 3 ORDER BY x) AS tiles
        FROM (SELECT decode(packed, 'base64') AS bytes) b, generate_series(0, h - 1) y, generate_series(0, w - 1) x
        GROUP BY y) r
$$;

ALTER TABLE mazes ADD COLUMN cells text;

-- Four cells a byte, the bytes in order, base64 without the line breaks encode() puts every 76 characters.
UPDATE mazes m SET cells = p.cells
FROM (
  SELECT id, translate(encode(string_agg(set_byte('\x00'::bytea, 0, v), ''::bytea ORDER BY b), 'base64'), E'\n', '')
           AS cells
  FROM (SELECT z.id, c.i / 4 AS b, bit_or(c.tile << (2 * (c.i % 4))) AS v
        FROM mazes z,
             jsonb_array_elements(z.grid) WITH ORDINALITY AS r(tiles, y),
             jsonb_array_elements_text(r.tiles) WITH ORDINALITY AS t(tile, x),
             LATERAL (SELECT ((r.y - 1) * z.width + t.x - 1)::integer AS i, t.tile::integer AS tile) c
        GROUP BY z.id, c.i / 4) bytes
  GROUP BY id
) p
WHERE p.id = m.id;

-- Nothing is dropped unless every maze reads back exactly as its grid was.
DO $$
DECLARE
  wrong text;
BEGIN
  SELECT string_agg(format('%s (%s)', id, content_hash), ', ' ORDER BY id) INTO wrong FROM mazes
  WHERE cells IS NULL OR maze_grid(cells, width, height) IS DISTINCT FROM grid
     OR jsonb_path_exists(grid, '$[*][*] ? (@ != 0 && @ != 1 && @ != 2)');
  IF wrong IS NOT NULL THEN
    RAISE EXCEPTION 'migration 014: mazes % do not convert exactly; nothing was changed', wrong;
  END IF;
END
$$;

ALTER TABLE mazes
  ALTER COLUMN cells SET NOT NULL,
  ADD CONSTRAINT mazes_cells_length CHECK (length(cells) = 4 * ((width * height + 11) / 12)),
  DROP COLUMN grid;

-- What the store cut to keep a row readable through the Data API (lambdas/engine/stored-limits.ts): each field cut,
-- with its size in bytes before; NULL when nothing was.
ALTER TABLE actions ADD COLUMN clipped jsonb;
ALTER TABLE llm_calls ADD COLUMN clipped jsonb;
