package graph

import (
	"bytes"
	"image"
	"image/color"
	"image/draw"
	"image/png"
	"math"
	"strconv"
	"unicode/utf8"

	"github.com/gozie/gozie/internal/workflow"

	"golang.org/x/image/font"
	"golang.org/x/image/font/basicfont"
	"golang.org/x/image/math/fixed"
)

// This file rasterizes the layout of graphsvg.go into a PNG, the format
// Oozie's REST API answers by default, without Graphviz or cgo: shapes are
// filled and stroked here with simple anti-aliasing, text uses the 7x13
// bitmap font of golang.org/x/image (ASCII, fixed width like the SVG's
// monospace). The output depends only on the input, byte for byte.

// maxPNGPixels bounds the image a request may make the server allocate (4
// bytes a pixel); a bigger graph is refused with a pointer to SVG, which
// has no such size.
const maxPNGPixels = 25_000_000

// png draws the laid-out graph.
func (g *graph) png() ([]byte, error) {
	w, h := int(math.Ceil(g.width)), int(math.Ceil(g.height))
	if w*h > maxPNGPixels {
		return nil, formatError(
			"Runtime error [the graph is %dx%d pixels, too large for png; use format=svg]", w, h)
	}
	c := &canvas{img: image.NewRGBA(image.Rect(0, 0, w, h))}
	draw.Draw(c.img, c.img.Bounds(), image.NewUniform(color.White), image.Point{}, draw.Src)
	c.text(margin, 22, truncate(g.title, 80), hexColour("#000000"), false)
	g.pngLegend(c)
	for i := range g.edges {
		g.pngEdge(c, i)
	}
	for _, n := range g.nodes {
		pngNode(c, n)
	}
	for _, r := range g.routes {
		if r.label != "" {
			b := r.labelBox()
			c.fillRect(b[0]-1, b[1], b[2]+1, b[3], color.RGBA{255, 255, 255, 255})
			c.text(r.lx, r.ly, r.label, hexColour("#37474f"), true)
		}
	}
	var out bytes.Buffer
	enc := png.Encoder{CompressionLevel: png.BestCompression}
	if err := enc.Encode(&out, c.img); err != nil {
		return nil, err
	}
	return out.Bytes(), nil
}

func (g *graph) pngLegend(c *canvas) {
	x, y := margin, 44.0
	for _, col := range g.legendEntries() {
		box := rectPoly(x, y-11, x+14, y+3)
		c.fillPoly(box, hexColour(col.fill))
		c.stroke(closed(box), 1, hexColour(col.stroke), nil)
		c.text(x+20, y, col.name, hexColour("#000000"), false)
		x += 24 + float64(utf8.RuneCountInString(col.name))*charWidth + 16
	}
	for _, l := range []struct {
		name, colour string
		dash         []float64
	}{{"ok", "#424242", nil}, {"error", "#c62828", []float64{5, 3}}} {
		col := hexColour(l.colour)
		c.stroke([]pt{{x, y - 4}, {x + 30, y - 4}}, 1.5, col, l.dash)
		c.arrow(pt{x + 30, y - 4}, pt{x + 36, y - 4}, col)
		c.text(x+42, y, l.name, col, false)
		x += 80
	}
}

// pngEdge draws one transition along its route, with its arrowhead.
func (g *graph) pngEdge(c *canvas, ei int) {
	e, r := g.edges[ei], g.routes[ei]
	pts := []pt{r.from}
	q := r.from
	for _, s := range r.segs {
		pts = append(pts, flatten(q, s)...)
		q = s.p
	}
	col, dash := hexColour("#424242"), []float64(nil)
	switch e.kind {
	case "error":
		col, dash = hexColour("#c62828"), []float64{5, 3}
	case "default":
		dash = []float64{2, 3}
	}
	// The line stops at the arrowhead's base so that it does not blunt
	// the tip.
	end := pts[len(pts)-1]
	dir := end
	for i := len(pts) - 2; i >= 0; i-- {
		if math.Hypot(end.x-pts[i].x, end.y-pts[i].y) >= 4 {
			dir = pts[i]
			break
		}
	}
	c.stroke(pts, 1.5, col, dash)
	c.arrow(dir, end, col)
}

// flatten turns a cubic into line segments (the points after q).
func flatten(q pt, s cubic) []pt {
	const steps = 16
	out := make([]pt, 0, steps)
	for i := 1; i <= steps; i++ {
		t := float64(i) / steps
		u := 1 - t
		a, b, cc, d := u*u*u, 3*u*u*t, 3*u*t*t, t*t*t
		out = append(out, pt{a*q.x + b*s.c1.x + cc*s.c2.x + d*s.p.x, a*q.y + b*s.c1.y + cc*s.c2.y + d*s.p.y})
	}
	return out
}

func pngNode(c *canvas, n *gnode) {
	bar := n.kind == workflow.ForkNode || n.kind == workflow.JoinNode
	fill, stroke := hexColour(n.colour.fill), hexColour(n.colour.stroke)
	width := 1.5
	if n.failed || bar {
		width = 3
	}
	x0, y0, x1, y1 := n.x-n.w/2, n.y-n.h/2, n.x+n.w/2, n.y+n.h/2
	var outline []pt
	switch {
	case n.missing || n.kind == workflow.ActionNode || bar:
		outline = rectPoly(x0, y0, x1, y1)
	case n.kind == workflow.DecisionNode:
		outline = []pt{{n.x, y0}, {x1, n.y}, {n.x, y1}, {x0, n.y}}
	case n.kind == workflow.KillNode:
		k := n.h * 0.3
		outline = []pt{{x0 + k, y0}, {x1 - k, y0}, {x1, y0 + k}, {x1, y1 - k}, {x1 - k, y1}, {x0 + k, y1}, {x0, y1 - k}, {x0, y0 + k}}
	default:
		outline = ellipse(n.x, n.y, n.w/2, n.h/2)
	}
	c.fillPoly(outline, fill)
	var dash []float64
	if n.missing {
		dash = []float64{4, 3}
	}
	c.stroke(closed(outline), width, stroke, dash)
	if n.kind == workflow.EndNode && !n.missing {
		c.stroke(closed(ellipse(n.x, n.y, n.w/2-4, n.h/2-4)), 1, stroke, nil)
	}
	top := n.y + 4 - 7*float64(len(n.lines)-1)
	for i, l := range n.lines {
		col := hexColour("#000000")
		if i > 0 {
			col = hexColour("#455a64")
		}
		c.text(n.x, top+14*float64(i), l, col, true)
	}
}

func rectPoly(x0, y0, x1, y1 float64) []pt { return []pt{{x0, y0}, {x1, y0}, {x1, y1}, {x0, y1}} }

func closed(p []pt) []pt { return append(p[:len(p):len(p)], p[0]) }

func ellipse(cx, cy, rx, ry float64) []pt {
	const k = 48
	out := make([]pt, k)
	for i := range out {
		a := 2 * math.Pi * float64(i) / k
		out[i] = pt{cx + rx*math.Cos(a), cy + ry*math.Sin(a)}
	}
	return out
}

// hexColour parses the #rrggbb colours of the legend.
func hexColour(s string) color.RGBA {
	v, _ := strconv.ParseUint(s[1:], 16, 32)
	return color.RGBA{uint8(v >> 16), uint8(v >> 8), uint8(v), 255}
}

// canvas is an RGBA image with the few drawing operations the graph needs.
type canvas struct{ img *image.RGBA }

// blend paints col over the pixel with coverage a in [0,1].
func (c *canvas) blend(x, y int, col color.RGBA, a float64) {
	if a <= 0 || !(image.Point{x, y}.In(c.img.Rect)) {
		return
	}
	a = min(a, 1)
	i := c.img.PixOffset(x, y)
	p := c.img.Pix[i : i+3 : i+3]
	for k, v := range []uint8{col.R, col.G, col.B} {
		p[k] = uint8(math.Round(float64(p[k])*(1-a) + float64(v)*a))
	}
}

func (c *canvas) fillRect(x0, y0, x1, y1 float64, col color.RGBA) {
	r := image.Rect(int(math.Floor(x0)), int(math.Floor(y0)), int(math.Ceil(x1)), int(math.Ceil(y1)))
	draw.Draw(c.img, r, image.NewUniform(col), image.Point{}, draw.Src)
}

// fillPoly fills a polygon (even-odd rule), 4x4 samples a pixel.
func (c *canvas) fillPoly(poly []pt, col color.RGBA) {
	minX, minY, maxX, maxY := poly[0].x, poly[0].y, poly[0].x, poly[0].y
	for _, p := range poly {
		minX, minY, maxX, maxY = min(minX, p.x), min(minY, p.y), max(maxX, p.x), max(maxY, p.y)
	}
	for y := int(math.Floor(minY)); y < int(math.Ceil(maxY)); y++ {
		for x := int(math.Floor(minX)); x < int(math.Ceil(maxX)); x++ {
			in := 0
			for sy := 0; sy < 4; sy++ {
				for sx := 0; sx < 4; sx++ {
					if inside(poly, float64(x)+(float64(sx)+0.5)/4, float64(y)+(float64(sy)+0.5)/4) {
						in++
					}
				}
			}
			c.blend(x, y, col, float64(in)/16)
		}
	}
}

func inside(poly []pt, x, y float64) bool {
	in := false
	for i, j := 0, len(poly)-1; i < len(poly); j, i = i, i+1 {
		a, b := poly[i], poly[j]
		if (a.y > y) != (b.y > y) && x < (b.x-a.x)*(y-a.y)/(b.y-a.y)+a.x {
			in = !in
		}
	}
	return in
}

// stroke draws a polyline of the given width, dashed when dash is set (on
// and off lengths). Each pixel takes the best coverage of any segment, so
// that joints are not painted twice.
func (c *canvas) stroke(pts []pt, width float64, col color.RGBA, dash []float64) {
	cover := map[image.Point]float64{}
	hw := width / 2
	seg := func(a, b pt) {
		x0, x1 := int(math.Floor(min(a.x, b.x)-hw-1)), int(math.Ceil(max(a.x, b.x)+hw+1))
		y0, y1 := int(math.Floor(min(a.y, b.y)-hw-1)), int(math.Ceil(max(a.y, b.y)+hw+1))
		for y := y0; y <= y1; y++ {
			for x := x0; x <= x1; x++ {
				d := segDist(pt{float64(x) + 0.5, float64(y) + 0.5}, a, b)
				if cv := hw + 0.5 - d; cv > 0 {
					p := image.Point{x, y}
					cover[p] = max(cover[p], min(cv, 1))
				}
			}
		}
	}
	if dash == nil {
		for i := 1; i < len(pts); i++ {
			seg(pts[i-1], pts[i])
		}
	} else {
		period := dash[0] + dash[1]
		at := 0.0 // distance along the line
		for i := 1; i < len(pts); i++ {
			a, b := pts[i-1], pts[i]
			l := math.Hypot(b.x-a.x, b.y-a.y)
			for s := 0.0; s < l; {
				phase := math.Mod(at+s, period)
				var next float64
				if phase < dash[0] {
					next = min(l, s+dash[0]-phase)
					f0, f1 := s/l, next/l
					seg(pt{a.x + (b.x-a.x)*f0, a.y + (b.y-a.y)*f0}, pt{a.x + (b.x-a.x)*f1, a.y + (b.y-a.y)*f1})
				} else {
					next = min(l, s+period-phase)
				}
				s = next
			}
			at += l
		}
	}
	// Each pixel is painted once with its final coverage, so the map's
	// order does not change the image.
	for p, cv := range cover {
		c.blend(p.X, p.Y, col, cv)
	}
}

// segDist is the distance from p to the segment a-b.
func segDist(p, a, b pt) float64 {
	dx, dy := b.x-a.x, b.y-a.y
	l2 := dx*dx + dy*dy
	t := 0.0
	if l2 > 0 {
		t = max(0, min(1, ((p.x-a.x)*dx+(p.y-a.y)*dy)/l2))
	}
	return math.Hypot(p.x-a.x-t*dx, p.y-a.y-t*dy)
}

// arrow draws a filled arrowhead with its tip at to, pointing away from
// from.
func (c *canvas) arrow(from, to pt, col color.RGBA) {
	dx, dy := to.x-from.x, to.y-from.y
	l := math.Hypot(dx, dy)
	if l == 0 {
		dx, dy, l = 0, 1, 1
	}
	dx, dy = dx/l, dy/l
	const length, half = 9.0, 4.0
	bx, by := to.x-dx*length, to.y-dy*length
	c.fillPoly([]pt{to, {bx - dy*half, by + dx*half}, {bx + dy*half, by - dx*half}}, col)
}

// text draws s with its baseline at y, starting at x or centred on it.
func (c *canvas) text(x, y float64, s string, col color.RGBA, centre bool) {
	face := basicfont.Face7x13
	n := utf8.RuneCountInString(s)
	if centre {
		x -= float64(n*face.Advance) / 2
	}
	d := font.Drawer{Dst: c.img, Src: image.NewUniform(col), Face: face,
		Dot: fixed.P(int(math.Round(x)), int(math.Round(y)))}
	for _, r := range s {
		switch {
		case r == '…':
			// Not in the font: three dots on the baseline.
			px, py := d.Dot.X.Round(), d.Dot.Y.Round()-1
			for _, dx := range []int{1, 3, 5} {
				c.blend(px+dx, py, col, 1)
			}
			d.Dot.X += fixed.I(face.Advance)
		case r < 0x20 || r > 0x7e:
			d.DrawString("?")
		default:
			d.DrawString(string(r))
		}
	}
}
