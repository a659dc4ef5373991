/* longnames.h -- LONG_NAME(p): an identifier of 899 characters, p's
 * first, the rest repeating "abcdefg" (under lib/plt.c's PLT_NAME_MAX,
 * which keeps a slot's name whole up to 1,024 bytes). */
#define LN_CAT_(a, b) a##b
#define LN_CAT(a, b) LN_CAT_(a, b)
#define LN_2(a) LN_CAT(a, a)
#define LN_128(a) LN_2(LN_2(LN_2(LN_2(LN_2(LN_2(LN_2(a)))))))
#define LONG_NAME(p) LN_CAT(p, LN_128(abcdefg))

int LONG_NAME(fa_)(int);
int LONG_NAME(fb_)(int);
int LONG_NAME(fc_)(int);
int LONG_NAME(fd_)(int);
int LONG_NAME(fe_)(int);
int LONG_NAME(ff_)(int);
int LONG_NAME(fg_)(int);
int LONG_NAME(fh_)(int);
