// hole.geo -- the square [-1,1]^2 with a circular hole of radius 0.4 at the origin,
// unstructured triangles, for operator tests (curved wall approximated by straight
// segments). Physical curves: "outer" (the square), "wall" (the circle); physical
// surface "fluid". Generated with: gmsh hole.geo -2 -format msh41 -o hole41.msh
DefineConstant[ h = {0.28, Name "h"} ];
hw = h / 2;   // finer along the wall

Point(1) = {-1, -1, 0, h};
Point(2) = { 1, -1, 0, h};
Point(3) = { 1,  1, 0, h};
Point(4) = {-1,  1, 0, h};
Point(5) = { 0,  0, 0, hw};
Point(6) = { 0.4, 0, 0, hw};
Point(7) = { 0, 0.4, 0, hw};
Point(8) = {-0.4, 0, 0, hw};
Point(9) = { 0, -0.4, 0, hw};

Line(1) = {1, 2};
Line(2) = {2, 3};
Line(3) = {3, 4};
Line(4) = {4, 1};
Circle(5) = {6, 5, 7};
Circle(6) = {7, 5, 8};
Circle(7) = {8, 5, 9};
Circle(8) = {9, 5, 6};

Curve Loop(1) = {1, 2, 3, 4};
Curve Loop(2) = {5, 6, 7, 8};
Plane Surface(1) = {1, 2};

Physical Curve("outer") = {1, 2, 3, 4};
Physical Curve("wall") = {5, 6, 7, 8};
Physical Surface("fluid") = {1};
