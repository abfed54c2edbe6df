/** Small Chinese word lists for what jieba's tags leave open. */

/**
 * jieba part-of-speech tags of names and the class they give. "nrt" (transliterated name) holds
 * people, places and brands alike in jieba's dictionary (爱因斯坦, 阿里巴巴), so it gives no class.
 */
export const NAME_TAG_KINDS: Record<string, "person" | "location" | "organization" | "concept"> = {
  nr: "person",
  nrfg: "person",
  nrt: "concept",
  ns: "location",
  nt: "organization",
};

/** Tags of nouns that form concept phrases ("跨国 科技 公司"). */
export const NOUN_TAGS = new Set(["n", "vn", "nz", "ng", "nl"]);

/** Frequent single-character surnames: an unknown two- or three-character word starting with one is likely a person. */
export const SURNAMES = new Set([
  ..."王李张刘陈杨黄赵吴周徐孙马朱胡郭何高林罗郑梁谢宋唐许韩冯邓曹彭曾肖田董袁潘蒋蔡余杜叶程苏魏吕丁任沈姚卢姜崔钟谭陆汪范金石廖贾夏韦付方白邹孟熊秦邱江尹薛闫段雷侯龙史陶黎贺顾毛郝龚邵万钱严覃武戴莫孔向汤",
]);

/** Function characters (and pronouns) jieba's unknown-word model sometimes glues onto a name ("由马云", "他读"). */
export const LEADING_FUNCTION_CHARS = new Set([
  ..."由在于和与及的了是被把从向对给等将为以让就都也而其这那他她它我你您",
]);
export const TRAILING_FUNCTION_CHARS = new Set([..."的了等说是于在和与及也都就"]);

/**
 * Verbs of speech that follow a speaker's name ("李明说", "王芳表示"): jieba may read a name's last
 * character into one it knows (李 / 明说), or keep the verb in a name it does not know (李明称).
 */
export const SPEECH_VERBS =
  "说 说道 称 表示 指出 认为 强调 透露 介绍 坦言 直言 回忆 解释 告诉 宣布 承认 补充 提到 谈到 声称 回应 笑称".split(
    " ",
  );

/** Question words jieba's HMM glues to a measure word ("哪座", "哪家"): they ask, they name nothing. */
export const QUESTION_WORD = /^(?:哪|谁|啥|什么|怎么|怎样|多少)/u;

/** Endings that make a name an organisation or a place. */
export const ORGANIZATION_SUFFIXES = [
  "公司",
  "集团",
  "大学",
  "学院",
  "学校",
  "银行",
  "医院",
  "研究院",
  "研究所",
  "协会",
  "委员会",
  "政府",
  "基金会",
  "中心",
  "出版社",
  "报社",
  "电视台",
  "实验室",
  "俱乐部",
  "部",
  "局",
  "党",
  "队",
  "厂",
];
/**
 * Job titles jieba's dictionary lacks: without them it reads the title's last character with the
 * name after it (首席财务官李明 → 财务 / 官李). Added to its dictionary as common nouns.
 */
export const JOB_TITLE_WORDS =
  "首席执行官 首席财务官 首席技术官 首席运营官 首席信息官 首席营销官 首席科学家 财务官 技术官 信息官 营销官 联合创始人".split(
    " ",
  );
/** Words that end a company's full name ("星河动力公司"): without them it is the company's short name. */
export const COMPANY_WORDS = ["股份有限公司", "有限责任公司", "有限公司", "公司", "集团"];

/**
 * Trade words a Chinese company's short name ends with ("青岚科技", "墨川生物"): after a coined word
 * jieba does not know, the two together are the company's name.
 */
export const TRADE_WORDS = new Set(
  "科技 生物 智能 动力 电子 能源 医药 制药 汽车 网络 软件 传媒 资本 物流 通信 材料 半导体 机器人 航天 航空 控股 证券 保险 地产 置业 食品 教育 咨询 化工 环保 光电 微电子 信息 数据 互娱 影业 娱乐 创投 实业 重工 机械 精密 纺织 农业 医疗 健康 光学 芯片 新能源 储能 云计算 航运 海运 药业 建设 工程 投资 金融 电力 矿业 钢铁 电器 家居 服饰".split(
    " ",
  ),
);
export const PLACE_SUFFIXES = [..."省市县区镇乡村州山河江湖海岛路街港湾"];
/**
 * Place and organisation endings a given name ends with too (孙中山, 李江, 王小海, 陈路): after a
 * surname they leave the name a person's. The others (区, 市, 公司...) end no person's name.
 */
const GIVEN_NAME_ENDINGS = new Set([..."镇乡村州山河江湖海岛路街港湾部局党队厂"]);
/** Two-character surnames: 欧阳修, 司马光, 诸葛亮. */
const COMPOUND_SURNAMES =
  "欧阳 司马 诸葛 上官 司徒 东方 皇甫 尉迟 公孙 慕容 长孙 宇文 夏侯 令狐 端木 独孤".split(" ");

/** Nouns too general to be concepts of their own. */
export const GENERIC_NOUNS = new Set(
  "时候 时间 问题 方面 情况 部分 东西 人们 方式 过程 结果 原因 地方 事情 内容 工作 其中 一种 之一 包括 主要 这种 那种 方法 作用 影响 关系".split(
    " ",
  ),
);

/** Verbs that carry no theme of their own. */
export const LIGHT_VERBS = new Set(
  "是 有 在 为 成为 进行 使 让 被 把 会 能 可以 要 说 得 到 来 去 做 没有 就是 还是".split(" "),
);

export function endsWithAny(word: string, suffixes: readonly string[]): boolean {
  return suffixes.some((suffix) => word.length > suffix.length && word.endsWith(suffix));
}

/** A surname on its own: 李, 欧阳. */
export function isSurname(word: string): boolean {
  return (word.length === 1 && SURNAMES.has(word)) || COMPOUND_SURNAMES.includes(word);
}

/** A person's name may be: a common surname and one or two characters, or a two-character surname and one or two. */
export function mayBePersonName(name: string): boolean {
  if (COMPOUND_SURNAMES.some((surname) => name.startsWith(surname)))
    return name.length >= 3 && name.length <= 4;
  return SURNAMES.has(name[0]!) && name.length >= 2 && name.length <= 3;
}

/**
 * The class a name's ending gives: 高新区 a place, 星河公司 an organisation, whatever jieba tagged
 * them. An ending that ends given names too leaves a name that may be a person's open (孙中山,
 * 李江): null.
 */
export function suffixKind(name: string): "organization" | "location" | null {
  const kind = endsWithAny(name, ORGANIZATION_SUFFIXES)
    ? "organization"
    : endsWithAny(name, PLACE_SUFFIXES)
      ? "location"
      : null;
  if (!kind) return null;
  return GIVEN_NAME_ENDINGS.has(name.at(-1)!) && mayBePersonName(name) ? null : kind;
}
