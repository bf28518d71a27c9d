/* Network-style packet records: bitfield headers, tagged unions of
   payloads, byte-order conversion through unions, and a checksum. */
#include <stdint.h>
#include <stdio.h>
#include <string.h>

enum kind { K_PING = 1, K_DATA = 2, K_ACK = 3, K_ERROR = 4 };

struct header {
    unsigned version : 3;
    unsigned kind : 3;
    unsigned urgent : 1;
    unsigned fragment : 1;
    unsigned length : 12;
    unsigned sequence : 12;
};

struct ping {
    uint32_t stamp;
};

struct data {
    uint16_t count;
    int16_t samples[6];
};

struct ack {
    uint32_t upto;
    uint8_t window;
};

struct error {
    int code;
    char text[12];
};

typedef struct {
    struct header h;
    union {
        struct ping ping;
        struct data data;
        struct ack ack;
        struct error error;
        uint8_t raw[24];
    } u;
} packet_t;

typedef union {
    uint32_t word;
    uint8_t bytes[4];
    struct {
        uint16_t lo, hi;
    } halves;
} word_view;

typedef union {
    float f;
    uint32_t bits;
} float_bits;

static uint32_t swap32(uint32_t v)
{
    word_view in = {.word = v}, out;
    for (int i = 0; i < 4; i++)
        out.bytes[i] = in.bytes[3 - i];
    return out.word;
}

static uint16_t checksum16(const uint8_t *p, size_t n)
{
    uint32_t sum = 0;
    for (size_t i = 0; i + 1 < n; i += 2)
        sum += (uint32_t)(p[i] << 8 | p[i + 1]);
    if (n & 1)
        sum += (uint32_t)p[n - 1] << 8;
    while (sum >> 16)
        sum = (sum & 0xffff) + (sum >> 16);
    return (uint16_t)~sum;
}

static packet_t make_packet(unsigned seq)
{
    packet_t p;
    memset(&p, 0, sizeof p);
    p.h.version = 2;
    p.h.kind = 1 + seq % 4;
    p.h.urgent = (seq % 5) == 0;
    p.h.fragment = seq & 1;
    p.h.sequence = seq * 37u;
    switch (p.h.kind) {
    case K_PING:
        p.u.ping.stamp = 1000000u + seq * 7919u;
        p.h.length = sizeof p.u.ping;
        break;
    case K_DATA:
        p.u.data.count = 1 + seq % 6;
        for (int i = 0; i < p.u.data.count; i++)
            p.u.data.samples[i] = (int16_t)((int)(seq * 31 + i * 17) % 2001 - 1000);
        p.h.length = sizeof p.u.data;
        break;
    case K_ACK:
        p.u.ack.upto = seq * 3u;
        p.u.ack.window = (uint8_t)(seq * 11u);
        p.h.length = sizeof p.u.ack;
        break;
    default:
        p.u.error.code = -(int)seq;
        snprintf(p.u.error.text, sizeof p.u.error.text, "E%u", seq);
        p.h.length = sizeof p.u.error;
        break;
    }
    return p;
}

static long describe(const packet_t *p)
{
    switch (p->h.kind) {
    case K_PING:
        return (long)swap32(p->u.ping.stamp) % 100000;
    case K_DATA: {
        long s = 0;
        for (int i = 0; i < p->u.data.count; i++)
            s += p->u.data.samples[i];
        return s;
    }
    case K_ACK:
        return (long)p->u.ack.upto * p->u.ack.window;
    case K_ERROR:
        return p->u.error.code * 10 + (long)strlen(p->u.error.text);
    }
    return 0;
}

int main(void)
{
    long totals[5] = {0};
    unsigned urgent = 0, frag = 0;
    uint16_t csum = 0;
    for (unsigned seq = 0; seq < 200; seq++) {
        packet_t p = make_packet(seq);
        totals[p.h.kind] += describe(&p);
        urgent += p.h.urgent;
        frag += p.h.fragment;
        csum ^= checksum16(p.u.raw, p.h.length);
    }
    printf("sizeof header=%zu packet=%zu\n", sizeof(struct header), sizeof(packet_t));
    for (int k = K_PING; k <= K_ERROR; k++)
        printf("kind %d total %ld\n", k, totals[k]);
    printf("urgent %u fragments %u checksum %04x\n", urgent, frag, csum);
    word_view w = {.word = 0x11223344u};
    printf("halves %04x %04x swapped %08x\n", w.halves.lo, w.halves.hi, swap32(w.word));
    float_bits fb = {.f = -2.5f};
    printf("float bits %08x sign %u exponent %u\n", fb.bits, fb.bits >> 31, (fb.bits >> 23) & 0xff);
    struct header h = {.version = 7, .kind = 5, .length = 4095, .sequence = 4095};
    h.length += 1; /* wraps */
    printf("wrapped length %u sequence %u\n", h.length, h.sequence);
    return 0;
}
