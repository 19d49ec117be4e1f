// SPDX-License-Identifier: GPL-2.0
/*
 * test_escape.c - UTF-8 validation and the JSON and XML escaping built on
 * it: what passes through, what is escaped, what becomes U+FFFD.
 */
#include "common/escape.h"
#include "output_util.h"

#define FFFD "\xef\xbf\xbd"

/* What escape, one of escape__json/xml/text, writes for s; it must succeed. */
static char *escaped(int (*escape)(FILE *, const char *), const char *s)
{
	struct memout m;

	cr_assert_eq(escape(memout__open(&m), s), 0);
	return memout__text(&m);
}

#define assert_escapes(escape, in, want) do {				\
	char *got_ = escaped(escape, in);				\
	cr_assert_str_eq(got_, want, "%s(%s)", #escape, #in);		\
	free(got_);							\
} while (0)
#define assert_json(in, want) assert_escapes(escape__json, in, want)
#define assert_xml(in, want) assert_escapes(escape__xml, in, want)

Test(escape, utf8_decode)
{
	static const struct {
		const char *s;
		size_t len;
		uint32_t cp;
	} ok[] = {
		{ "A", 1, 'A' }, { "\x7f", 1, 0x7f }, { "\xc2\x80", 2, 0x80 },
		{ "\xdf\xbf", 2, 0x7ff }, { "\xe0\xa0\x80", 3, 0x800 }, { "\xef\xbf\xbf", 3, 0xffff },
		{ "\xf0\x90\x80\x80", 4, 0x10000 }, { "\xf4\x8f\xbf\xbf", 4, 0x10ffff },
	};
	static const char *const bad[] = {
		"\x80", "\xbf", "\xc0\xaf", "\xc1\xbf", "\xe0\x80\xaf", "\xf0\x80\x80\xaf",
		"\xed\xa0\x80", "\xed\xbf\xbf", "\xf4\x90\x80\x80", "\xf8\x88\x80\x80\x80",
		"\xff", "\xc3", "\xe2\x82", "\xc3(",
	};
	uint32_t cp;

	for (size_t i = 0; i < ARRAY_SIZE(ok); i++) {
		cr_assert_eq(utf8_decode((const unsigned char *)ok[i].s, strlen(ok[i].s), &cp),
			     ok[i].len, "case %zu", i);
		cr_assert_eq(cp, ok[i].cp, "case %zu: U+%04x", i, cp);
	}
	for (size_t i = 0; i < ARRAY_SIZE(bad); i++)
		cr_assert_eq(utf8_decode((const unsigned char *)bad[i], strlen(bad[i]), &cp), 0,
			     "bad case %zu accepted", i);
	/* a valid sequence cut short by the length given */
	cr_assert_eq(utf8_decode((const unsigned char *)"\xe2\x82\xac", 2, &cp), 0);
}

Test(escape, json)
{
	assert_json("", "\"\"");
	assert_json("plain std::vector<int>", "\"plain std::vector<int>\"");
	assert_json("q\"b\\", "\"q\\\"b\\\\\"");
	assert_json("\n\t\r\x01\x1f\x7f", "\"\\n\\t\\r\\u0001\\u001f\\u007f\"");
	assert_json("caf\xc3\xa9 \xf0\x9f\x94\xa5", "\"caf\xc3\xa9 \xf0\x9f\x94\xa5\"");
	assert_json("a\xff" "b\xc3", "\"a" FFFD "b" FFFD "\"");
	assert_json("\xed\xa0\x80", "\"" FFFD FFFD FFFD "\"");
}

Test(escape, xml)
{
	assert_xml("", "");
	assert_xml("a<b>&\"c\"'d'", "a&lt;b&gt;&amp;&quot;c&quot;&apos;d&apos;");
	assert_xml("]]>", "]]&gt;");
	/* controls other than tab, newline and CR are not XML characters at all */
	assert_xml("\t\n\r\x01\x1b", "\t\n\r" FFFD FFFD);
	assert_xml("\xef\xbf\xbe", FFFD);
	assert_xml("caf\xc3\xa9\xff", "caf\xc3\xa9" FFFD);
}

Test(escape, write_errors)
{
	FILE *f = full_stream();

	cr_assert_eq(escape__json(f, "x"), -ENOSPC);
	cr_assert_eq(escape__xml(f, "x"), -ENOSPC);
	cr_assert_eq(escape__text(f, "x"), -ENOSPC, "not the stream's errno");
	fclose(f);
}

Test(escape, text_has_no_control_characters)
{
	/* the escape sequence is defused, UTF-8 stays */
	assert_escapes(escape__text, "/tmp/a\033]0;owned\007b\n\x7f" "caf\xc3\xa9",
		       "/tmp/a?]0;owned?b??caf\xc3\xa9");
	/* C1 controls: encoded as UTF-8 (U+009B) and as a lone 8-bit CSI byte */
	assert_escapes(escape__text, "x\xc2\x9b" "31m\x9b" "0m \xe2\x82\xac", "x?31m?0m \xe2\x82\xac");
}

/*
 * The bidirectional controls make a name read as another (U+202E turns
 * "gnp.exe" around): defused wherever a name is shown, as C1 is.
 */
Test(escape, bidi_controls_defused_everywhere)
{
	assert_escapes(escape__text, "rlo\xe2\x80\xae" "gnp.exe \xe2\x81\xa6x\xe2\x81\xa9 \xe2\x80\x8f",
		       "rlo?gnp.exe ?x? ?");
	assert_json("rlo\xe2\x80\xae" "gnp \xc2\x9b", "\"rlo" FFFD "gnp " FFFD "\"");
	assert_xml("rlo\xe2\x80\xae" "gnp \xc2\x9b", "rlo" FFFD "gnp " FFFD);
	/* the marks a name may hold are kept: U+2010 (hyphen), U+2030 (per mille) */
	assert_escapes(escape__text, "a\xe2\x80\x90" "b\xe2\x80\xb0", "a\xe2\x80\x90" "b\xe2\x80\xb0");
}
