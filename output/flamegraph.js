/*
 * flamegraph.js - the script of the SVG flame graph (flamegraph.c embeds
 * it), written for profile after the behaviour of flamegraph.pl: click a
 * frame to zoom, Reset Zoom, Search with a regular expression (or Ctrl-F)
 * and the share of samples it matched. Geometry is read back from the
 * rects; what the writer knows is declared in front of this text:
 * "use strict", then XPAD (the left margin), FULLW (the width of the root
 * frame) and CHARW (the average glyph width), in pixels.
 */
/* global XPAD, FULLW, CHARW */
var svg, frames, details, matched, searchbtn, unzoombtn, searching = false;
function init(evt) {
	svg = document.documentElement;
	frames = document.getElementById('frames');
	details = document.getElementById('details').firstChild;
	matched = document.getElementById('matched');
	searchbtn = document.getElementById('search');
	unzoombtn = document.getElementById('unzoom');
	var gs = frames.getElementsByTagName('g');
	for (var i = 0; i < gs.length; i++) {
		var r = gs[i].getElementsByTagName('rect')[0];
		/* remember the unzoomed geometry and colour */
		r.ox = parseFloat(r.getAttribute('x'));
		r.ow = parseFloat(r.getAttribute('width'));
		r.oy = parseFloat(r.getAttribute('y'));
		r.ofill = r.getAttribute('fill');
	}
	frames.addEventListener('click', function(e) {
		var g = frame_of(e.target);
		if (g) zoom(g);
	});
	frames.addEventListener('mouseover', function(e) {
		var g = frame_of(e.target);
		if (g) details.nodeValue = 'Function: ' + title_of(g);
	});
	frames.addEventListener('mouseout', function(e) {
		details.nodeValue = ' ';
	});
	unzoombtn.addEventListener('click', unzoom);
	searchbtn.addEventListener('click', search_prompt);
	window.addEventListener('keydown', function(e) {
		if (e.keyCode === 114 || ((e.ctrlKey || e.metaKey) && e.keyCode === 70)) {
			e.preventDefault();
			search_prompt();
		} else if (e.keyCode === 27 && searching) {
			reset_search();
		}
	});
}
function frame_of(el) {
	while (el && el !== frames) {
		if (el.tagName === 'g') return el;
		el = el.parentNode;
	}
	return null;
}
function title_of(g) { return g.getElementsByTagName('title')[0].textContent; }
function rect_of(g) { return g.getElementsByTagName('rect')[0]; }
/* the title is 'name (N samples, P%)' or 'name (T ms, P%)': the name is what precedes the last ' (' */
function name_of(g) {
	var t = title_of(g);
	var i = t.lastIndexOf(' (');
	return i < 0 ? t : t.substring(0, i);
}
function place(g, x, w) {
	var r = rect_of(g), t = g.getElementsByTagName('text')[0];
	r.setAttribute('x', x.toFixed(2));
	r.setAttribute('width', w.toFixed(2));
	t.setAttribute('x', (x + 3).toFixed(2));
	var name = name_of(g), fit = Math.floor((w - 6) / CHARW);
	if (fit < 3) t.textContent = '';
	else if (name.length <= fit) t.textContent = name;
	else t.textContent = name.substring(0, fit - 2) + '..';
}
function zoom(g) {
	var z = rect_of(g), zx = z.ox, zw = z.ow, zy = z.oy, eps = 0.0001;
	if (zw >= FULLW - eps) { unzoom(); return; }
	var ratio = FULLW / zw, gs = frames.getElementsByTagName('g');
	for (var i = 0; i < gs.length; i++) {
		var r = rect_of(gs[i]), show = false;
		gs[i].classList.remove('parent');
		if (r.oy >= zy) {
			/* the root is at the bottom: this level or below, the frame and its callers */
			if (r.ox <= zx + eps && r.ox + r.ow >= zx + zw - eps) {
				show = true;
				place(gs[i], XPAD, FULLW);
				if (r.oy > zy) gs[i].classList.add('parent');
			}
		} else if (r.ox >= zx - eps && r.ox + r.ow <= zx + zw + eps) {
			/* above it: what it called */
			show = true;
			place(gs[i], XPAD + (r.ox - zx) * ratio, r.ow * ratio);
		}
		gs[i].classList.toggle('hide', !show);
	}
	unzoombtn.classList.remove('hide');
}
function unzoom() {
	var gs = frames.getElementsByTagName('g');
	for (var i = 0; i < gs.length; i++) {
		var r = rect_of(gs[i]);
		gs[i].classList.remove('hide');
		gs[i].classList.remove('parent');
		place(gs[i], r.ox, r.ow);
	}
	unzoombtn.classList.add('hide');
}
function search_prompt() {
	if (searching) { reset_search(); return; }
	var term = prompt('Search for (a regular expression, e.g. ^ext4_)', '');
	if (term) search(term);
}
function search(term) {
	var re, spans = [], gs = frames.getElementsByTagName('g');
	try { re = new RegExp(term); } catch (e) { alert('invalid regular expression: ' + e.message); return; }
	for (var i = 0; i < gs.length; i++) {
		var r = rect_of(gs[i]);
		if (re.test(name_of(gs[i]))) {
			r.setAttribute('fill', 'rgb(230,0,230)');
			spans.push([r.ox, r.ow]);
		}
	}
	searching = true;
	searchbtn.firstChild.nodeValue = 'Reset Search';
	searchbtn.classList.add('active');
	/* a match inside a match covers no new samples: count the outermost only */
	spans.sort(function(a, b) { return a[0] - b[0] || b[1] - a[1]; });
	var covered = 0, end = -1;
	for (var j = 0; j < spans.length; j++) {
		if (spans[j][0] >= end - 0.0001) {
			covered += spans[j][1];
			end = spans[j][0] + spans[j][1];
		}
	}
	matched.firstChild.nodeValue = 'Matched: ' + (100 * covered / FULLW).toFixed(1) + '%';
	matched.classList.remove('hide');
}
function reset_search() {
	var gs = frames.getElementsByTagName('g');
	for (var i = 0; i < gs.length; i++) {
		var r = rect_of(gs[i]);
		r.setAttribute('fill', r.ofill);
	}
	searching = false;
	searchbtn.firstChild.nodeValue = 'Search';
	searchbtn.classList.remove('active');
	matched.classList.add('hide');
}
