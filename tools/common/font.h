/* tbr 5x7 bitmap font (own design). Glyph cell 5x7, advance 6 (1 column gap). */
#ifndef TBR_PIC_FONT_H
#define TBR_PIC_FONT_H
#define TBR_FONT_W       5
#define TBR_FONT_H       7
#define TBR_FONT_ADVANCE 6
int tbr_font_glyph_bit(char c, int col, int row);  /* 1 = ink */
int tbr_font_text_width(const char *s, int scale); /* pixels */
#endif
