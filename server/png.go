package server

// canDrawPNG says whether this build serves charts as PNG for link previews.
var canDrawPNG = false
