// SPDX-License-Identifier: GPL-2.0
/*
 * SVG flame graph exporter: one self-contained SVG (no external file, script or font) with a
 * small script for click-to-zoom, search (regular expression, matched share shown) and a
 * details line on hover (frame, value, share). Written from scratch for this tool.
 *
 * Layout is computed here: the folded paths (sorted, so equal prefixes are adjacent) are
 * merged into a tree; each node is one <g class="f"> with a <title>, a <rect> and a <text>;
 * depth 0 is the "all" root at the bottom, children above their parent, siblings in label
 * order. x and width are in pixels of the full view; the script rescales them on zoom from
 * the data-x/data-w/data-d attributes. Frames narrower than 0.1 pixel in the full view are
 * left out (their time still counts in their parents).
 *
 * The script also reads the URL fragment: #zoom=NAME zooms on the first frame called NAME,
 * #search=REGEX searches (links can point at a view; the tests drive the script this way).
 *
 * Colours: by event type (--color event: one hue per type, lightness varies by function)
 * or by module (--color module: core kernel warm, each module its own cool hue, unresolved
 * addresses grey). The differential graph (diff --format svg) takes each stack's width from
 * the larger of its two values, max(A, B), so that stacks only in A (the baseline) stay
 * visible, and colours every frame by the change from A to B: red grew, blue shrank (a frame
 * only in A is full blue), white unchanged. A frame's width is the sum of max(A, B) over its
 * stacks, which is at least max(A, B) of the frame itself.
 */
#define _POSIX_C_SOURCE 200809L
#include "export.h"

#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#define SV_WIDTH   1200.0
#define SV_FRAME_H 16
#define SV_TOP	   40
#define SV_BOTTOM  30
#define SV_MIN_PX  0.1

struct sv_node {
	uint32_t label; /* strs index; UINT32_MAX for the root */
	uint32_t depth, type;
	uint64_t value, value_a;
	uint64_t width; /* layout value: value, or the sum of max(A, B) of the paths in a diff */
	double x; /* pixels, full view */
	uint64_t child_sum; /* width of the children placed so far */
};

struct sv_tree {
	struct sv_node *v;
	size_t n, cap;
	uint32_t max_depth;
};

static long sv_add(struct sv_tree *t, const struct sv_node *nd)
{
	if (t->n == t->cap) {
		size_t ncap = t->cap ? t->cap * 2 : 1024;
		struct sv_node *n = realloc(t->v, ncap * sizeof(*n));

		if (!n)
			return -ENOMEM;
		t->v = n;
		t->cap = ncap;
	}
	t->v[t->n] = *nd;
	if (nd->depth > t->max_depth)
		t->max_depth = nd->depth;
	return (long)t->n++;
}

/*
 * Merge sorted paths into the tree. Node values are final only after every path, so x is
 * assigned from the parent's running child sum in a second pass over the same order.
 */
static int sv_build(const struct ex_paths *ps, int diff, struct sv_tree *t)
{
	uint32_t *chain = NULL, maxnr = 0;
	struct sv_node root = {.label = UINT32_MAX};
	size_t i;
	uint32_t k, depth = 0;
	int ret = -ENOMEM;

	memset(t, 0, sizeof(*t));
	for (i = 0; i < ps->n; i++)
		if (ps->v[i].nr > maxnr)
			maxnr = ps->v[i].nr;
	chain = calloc(maxnr + 2, sizeof(*chain));
	if (!chain)
		return -ENOMEM;
	if (sv_add(t, &root) < 0)
		goto out;
	chain[0] = 0;
	for (i = 0; i < ps->n; i++) {
		const struct ex_path *p = &ps->v[i];
		uint64_t w = diff && p->value_a > p->value ? p->value_a : p->value;
		uint32_t common = 0;

		/* longest prefix shared with the chain of the previous path */
		while (common < p->nr && common < depth &&
		       t->v[chain[common + 1]].label == p->labels[common])
			common++;
		for (k = common; k < p->nr; k++) {
			struct sv_node nd = {
				.label = p->labels[k], .depth = k + 1, .type = p->type};
			long idx = sv_add(t, &nd);

			if (idx < 0)
				goto out;
			chain[k + 1] = (uint32_t)idx;
		}
		depth = p->nr;
		for (k = 0; k <= p->nr; k++) {
			t->v[chain[k]].value += p->value;
			t->v[chain[k]].value_a += p->value_a;
			t->v[chain[k]].width += w;
		}
	}
	/* x positions: nodes were created in pre-order, so a parent precedes its children */
	chain[0] = 0;
	for (i = 1; i < t->n; i++) {
		struct sv_node *nd = &t->v[i];
		/* the parent is the latest node of depth - 1 seen so far */
		struct sv_node *par = &t->v[chain[nd->depth - 1]];

		nd->x = par->x +
			(t->v[0].width ? SV_WIDTH * (double)par->child_sum / (double)t->v[0].width
				       : 0);
		par->child_sum += nd->width;
		chain[nd->depth] = (uint32_t)i;
	}
	ret = 0;
out:
	free(chain);
	return ret;
}

static void sv_esc(FILE *f, const char *s)
{
	for (; *s; s++) {
		switch (*s) {
		case '<':
			fputs("&lt;", f);
			break;
		case '>':
			fputs("&gt;", f);
			break;
		case '&':
			fputs("&amp;", f);
			break;
		case '"':
			fputs("&quot;", f);
			break;
		default:
			if ((unsigned char)*s >= 0x20)
				fputc(*s, f);
		}
	}
}

static uint32_t sv_hash(const char *s)
{
	uint32_t h = 2166136261u;

	for (; *s; s++)
		h = (h ^ (unsigned char)*s) * 16777619u;
	return h;
}

/* Colour of a frame as HSL. */
static void sv_color(const struct pf *p, const struct ex_opts *o, const struct sv_node *nd,
		     char *buf, size_t size)
{
	const char *label = nd->label == UINT32_MAX ? "all" : pf_str(p, nd->label);
	uint32_t h = sv_hash(label);
	const char *mod;
	int hue, light = 55 + (int)(h % 20);

	if (nd->depth == 0) {
		snprintf(buf, size, "hsl(0,0%%,80%%)");
		return;
	}
	if (o->color == EX_COLOR_MODULE) {
		if (nd->depth == 1 && o->by != EX_BY_NONE) { /* the --by label, not a frame */
			snprintf(buf, size, "hsl(45,15%%,%d%%)", 68 + (int)(h % 10));
			return;
		}
		mod = strstr(label, " [");
		if (label[0] == '[' || strncmp(label, "0x", 2) == 0) {
			snprintf(buf, size, "hsl(0,0%%,%d%%)", 60 + (int)(h % 15));
			return;
		}
		if (mod && label[strlen(label) - 1] == ']')
			hue = 160 + (int)(sv_hash(mod) % 100); /* green to blue */
		else
			hue = 5 + (int)(h % 50); /* core kernel: red to yellow */
		snprintf(buf, size, "hsl(%d,75%%,%d%%)", hue, light);
		return;
	}
	/* by event type: the type picks the hue family */
	hue = (int)(sv_hash(pf_str(p, nd->type)) % 360);
	snprintf(buf, size, "hsl(%d,70%%,%d%%)", (hue + (int)(h % 24)) % 360, light);
}

static void sv_diff_color(const struct sv_node *nd, uint64_t scale, char *buf, size_t size)
{
	double d = (double)nd->value - (double)nd->value_a;
	int s = scale ? (int)(100.0 * (d < 0 ? -d : d) / (double)scale) : 0;

	if (s > 100)
		s = 100;
	if (d > 0)
		snprintf(buf, size, "rgb(255,%d,%d)", 255 - 2 * s, 255 - 2 * s);
	else if (d < 0)
		snprintf(buf, size, "rgb(%d,%d,255)", 255 - 2 * s, 255 - 2 * s);
	else
		snprintf(buf, size, "rgb(250,250,250)");
}

/* The script: zoom, search, details. Kept small and dependency-free. */
static const char sv_script[] =
	"var W=%g,FH=%d,SVGH=%d,unit='%s',total=%" PRIu64 ",diff=%d;\n"
	"var frames=[],details,matchedT,zoomed=null;\n"
	"function fmt(v){return unit==='ns'?(v>=1e6?(v/1e6).toFixed(2)+' ms':(v/1e3).toFixed(1)+' "
	"us')"
	":v+(v==1?' event':' events');}\n"
	"function init(){var "
	"gs=document.querySelectorAll('g.f');details=document.getElementById('details');"
	"matchedT=document.getElementById('matched');\n"
	" for(var i=0;i<gs.length;i++){var g=gs[i];var f={g:g,x:+g.getAttribute('data-x'),"
	"w:+g.getAttribute('data-w'),d:+g.getAttribute('data-d'),v:+g.getAttribute('data-v'),"
	"name:g.getAttribute('data-n'),r:g.querySelector('rect'),t:g.querySelector('text'),"
	"fill:null};f.fill=f.r.getAttribute('fill');frames.push(f);\n"
	"  g.addEventListener('click',(function(f){return function(){zoom(f);};})(f));\n"
	"  g.addEventListener('mouseover',(function(f){return function(){show(f);};})(f));\n"
	"  g.addEventListener('mouseout',function(){details.textContent=' ';});}\n"
	" document.getElementById('search').addEventListener('click',function(){"
	"var re=prompt('Search (regular expression)','');if(re!==null)search(re);});\n"
	" document.getElementById('reset').addEventListener('click',function(){zoom(frames[0]);"
	"search('');});\n"
	" zoom(frames[0]);var h=decodeURIComponent(location.hash.substring(1)),m;\n"
	" if((m=/^zoom=(.*)$/.exec(h)))for(var k=0;k<frames.length;k++)if(frames[k].name===m[1])"
	"{zoom(frames[k]);break;}\n"
	" if((m=/^search=(.*)$/.exec(h)))search(m[1]);\n"
	" var st=document.getElementById('status');st.textContent='ready: '+frames.length+' "
	"frames';}\n"
	"function show(f){var d=diff?' (A '+f.g.getAttribute('data-a')+')':'';"
	"details.textContent=f.name+' ('+fmt(f.v)+d+', '+(100*f.v/total).toFixed(2)+'%%)';}\n"
	"function label(f,w){var n=f.name,c=Math.floor(w/7);if(c<3)return '';"
	"return n.length<=c?n:n.substring(0,c-2)+'..';}\n"
	"function zoom(z){zoomed=z;var s=W/z.w;for(var i=0;i<frames.length;i++){var f=frames[i];"
	"var inside=f.d>=z.d&&f.x>=z.x-1e-6&&f.x+f.w<=z.x+z.w+1e-6;"
	"var anc=f.d<z.d&&f.x<=z.x+1e-6&&f.x+f.w>=z.x+z.w-1e-6;\n"
	"  if(inside){var x=(f.x-z.x)*s,w=f.w*s;f.g.style.display='';f.g.style.opacity=1;"
	"f.r.setAttribute('x',x);f.r.setAttribute('width',Math.max(w-0.5,0.1));"
	"f.t.setAttribute('x',x+3);f.t.textContent=label(f,w);}\n"
	"  else if(anc){f.g.style.display='';f.g.style.opacity=0.6;f.r.setAttribute('x',0);"
	"f.r.setAttribute('width',W);f.t.setAttribute('x',3);f.t.textContent=label(f,W);}\n"
	"  else f.g.style.display='none';}}\n"
	"function search(re){var rx=null;try{rx=re?new RegExp(re):null;}catch(e){"
	"matchedT.textContent='bad expression';return;}var m=[];\n"
	" for(var i=0;i<frames.length;i++){var f=frames[i];var hit=rx&&rx.test(f.name);"
	"f.r.setAttribute('fill',hit?'rgb(230,0,230)':f.fill);if(hit)m.push([f.x,f.x+f.w]);}\n"
	" m.sort(function(a,b){return a[0]-b[0];});var sum=0,end=-1;for(var j=0;j<m.length;j++){"
	"if(m[j][0]>=end){sum+=m[j][1]-m[j][0];end=m[j][1];}else if(m[j][1]>end){"
	"sum+=m[j][1]-end;end=m[j][1];}}\n"
	" matchedT.textContent=rx?'Matched: '+(100*sum/W).toFixed(2)+'%%':' ';}\n"
	"window.addEventListener('load',init);\n";

static int sv_write(struct pf *p, const struct ex_opts *o, const struct ex_paths *ps, int diff,
		    FILE *f)
{
	struct sv_tree t;
	uint64_t total, wtotal, scale = 0;
	double height;
	size_t i;
	char col[48];
	int ret = sv_build(ps, diff, &t);

	if (ret)
		return ret;
	total = t.v[0].value;
	wtotal = t.v[0].width; /* == total unless diff */
	for (i = 1; diff && i < t.n; i++) {
		uint64_t d = t.v[i].value > t.v[i].value_a ? t.v[i].value - t.v[i].value_a
							   : t.v[i].value_a - t.v[i].value;
		if (d > scale)
			scale = d;
	}
	height = SV_TOP + (t.max_depth + 1) * SV_FRAME_H + SV_BOTTOM;
	fprintf(f,
		"<?xml version=\"1.0\" standalone=\"no\"?>\n"
		"<svg version=\"1.1\" width=\"%g\" height=\"%g\" viewBox=\"0 0 %g %g\" "
		"xmlns=\"http://www.w3.org/2000/svg\">\n"
		"<!-- stackmap export %s: flame graph, %" PRIu64 " %s -->\n"
		"<style>text{font-family:Verdana,DejaVu Sans,sans-serif;font-size:12px;fill:#000}"
		"g.f text{pointer-events:none;font-size:11px}g.f:hover rect{stroke:#000;"
		"stroke-width:0.5}#search,#reset{cursor:pointer}</style>\n",
		SV_WIDTH, height, SV_WIDTH, height, SM_VERSION, total,
		p->opts.offcpu ? "ns off CPU" : "stack references");
	fprintf(f, "<script type=\"text/ecmascript\"><![CDATA[\n");
	fprintf(f, sv_script, SV_WIDTH, SV_FRAME_H, (int)height, p->opts.offcpu ? "ns" : "events",
		total, diff);
	fprintf(f, "]]></script>\n");
	fprintf(f, "<rect x=\"0\" y=\"0\" width=\"%g\" height=\"%g\" fill=\"#f4f4ee\"/>\n",
		SV_WIDTH, height);
	fprintf(f, "<text x=\"%g\" y=\"24\" text-anchor=\"middle\" style=\"font-size:17px\">",
		SV_WIDTH / 2);
	sv_esc(f, o->title	   ? o->title
		  : diff	   ? "Differential flame graph (red grew, blue shrank)"
		  : p->opts.offcpu ? "Off-CPU time by kernel stack"
				   : "Kernel stacks");
	fprintf(f, "</text>\n");
	fprintf(f, "<text id=\"reset\" x=\"10\" y=\"24\">Reset zoom</text>\n");
	fprintf(f, "<text id=\"search\" x=\"%g\" y=\"24\" text-anchor=\"end\">Search</text>\n",
		SV_WIDTH - 10);
	fprintf(f, "<text id=\"matched\" x=\"%g\" y=\"%g\" text-anchor=\"end\"> </text>\n",
		SV_WIDTH - 10, height - 10);
	fprintf(f, "<text id=\"details\" x=\"10\" y=\"%g\"> </text>\n", height - 10);
	fprintf(f,
		"<text id=\"status\" x=\"%g\" y=\"%g\" style=\"font-size:9px;fill:#999\" "
		"text-anchor=\"middle\"></text>\n",
		SV_WIDTH / 2, height - 10);
	for (i = 0; i < t.n; i++) {
		const struct sv_node *nd = &t.v[i];
		double w = wtotal ? SV_WIDTH * (double)nd->width / (double)wtotal : 0;
		double y = height - SV_BOTTOM - (nd->depth + 1) * SV_FRAME_H;
		const char *name = nd->label == UINT32_MAX ? "all" : pf_str(p, nd->label);

		if (i && w < SV_MIN_PX)
			continue;
		if (!wtotal && i)
			continue;
		if (diff)
			sv_diff_color(nd, scale, col, sizeof(col));
		else
			sv_color(p, o, nd, col, sizeof(col));
		fprintf(f,
			"<g class=\"f\" data-x=\"%.3f\" data-w=\"%.3f\" data-d=\"%u\" "
			"data-v=\"%" PRIu64 "\" data-a=\"%" PRIu64 "\" data-n=\"",
			nd->x, wtotal ? w : SV_WIDTH, nd->depth, nd->value, nd->value_a);
		sv_esc(f, name);
		fprintf(f, "\"><title>");
		sv_esc(f, name);
		if (diff)
			fprintf(f, " (A %" PRIu64 ", B %" PRIu64 ")", nd->value_a, nd->value);
		else
			fprintf(f, " (%" PRIu64 " %s, %.2f%%)", nd->value,
				p->opts.offcpu ? "ns" : (nd->value == 1 ? "event" : "events"),
				total ? 100.0 * (double)nd->value / (double)total : 0.0);
		fprintf(f,
			"</title><rect x=\"%.3f\" y=\"%g\" width=\"%.3f\" height=\"%d\" "
			"fill=\"%s\" "
			"rx=\"2\"/><text x=\"%.3f\" y=\"%g\"></text></g>\n",
			nd->x, y, wtotal ? w : SV_WIDTH, SV_FRAME_H - 1, col, nd->x + 3, y + 11.5);
	}
	fprintf(f, "</svg>\n");
	free(t.v);
	return ferror(f) ? -EIO : 0;
}

int ex_write_svg(struct pf *p, const struct ex_opts *o, FILE *f)
{
	struct ex_paths ps;
	int ret = ex_paths_build(p, o, &ps);

	if (ret)
		return ret;
	ret = sv_write(p, o, &ps, 0, f);
	ex_paths_free(&ps);
	return ret;
}

int ex_write_diff_svg(struct pf *a, struct pf *b, const struct ex_opts *o, int normalize, FILE *f)
{
	struct ex_paths ps;
	int ret = ex_diff_build(a, b, o, normalize, &ps);

	if (ret)
		return ret;
	ret = sv_write(a, o, &ps, 1, f);
	ex_paths_free(&ps);
	return ret;
}
