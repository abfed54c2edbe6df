import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { json, offlineWorkspace, type Running, removeAll, startServer, tempDir } from "../support/server.js";

const dirs: string[] = [];
let running: Running;

/** 青岚科技 is the best connected entity holding 科技, never at the start of its name. */
const DOCS = [
  {
    id: "qinglan",
    title: "青岚科技",
    text:
      "青岚科技是一家总部位于澄州的芯片设计公司，由林晓舟于2012年创立。青岚科技与澄州大学签署了合作协议。" +
      "林晓舟是青岚科技的创始人。青岚科技收购了海港光学的股份。",
  },
  {
    id: "haigang",
    title: "海港光学",
    text: "海港光学是一家位于杭州的光学公司。王建国在海港光学担任首席科学家，后来加入青岚科技。",
  },
  {
    id: "lumen",
    title: "Lumen Robotics",
    text: "Lumen Robotics was founded by Mara Okafor in Lisbon. Lumen Robotics builds warehouse robots.",
  },
];

beforeAll(async () => {
  const dir = await tempDir("search-zh");
  dirs.push(dir);
  await offlineWorkspace(dir, DOCS);
  running = await startServer({ workspaces: [dir] });
}, 60_000);

afterAll(async () => {
  await running?.stop();
  await removeAll(dirs);
});

const names = async (path: string) =>
  ((await json(await fetch(`${running.url}${path}`))).items as { name: string }[]).map((i) => i.name);

describe("entity search by the start of a name, in Chinese", () => {
  it("finds a Chinese name by characters inside it (its words are not spaced), after the names that start so", async () => {
    const found = await names(`/api/v1/graph/entities?prefix=${encodeURIComponent("科技")}`);
    expect(found).toContain("青岚科技");
    const starting = await names(`/api/v1/graph/entities?prefix=${encodeURIComponent("青岚")}`);
    expect(starting[0]).toBe("青岚科技");
  });

  it("keeps English names to their words' starts", async () => {
    expect(await names("/api/v1/graph/entities?prefix=robo")).toContain("Lumen Robotics");
    expect(await names("/api/v1/graph/entities?prefix=obotics")).not.toContain("Lumen Robotics");
  });
});
