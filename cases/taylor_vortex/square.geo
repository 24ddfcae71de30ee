// square.geo -- the Taylor vortex domain [-0.5,0.5]^2 (paper §4.1), unstructured triangles.
// Physical curves: "bottom" (y=-0.5), "right" (x=0.5), "top" (y=0.5), "left" (x=-0.5);
// physical surface "fluid". Mesh size: h (gmsh square.geo -2 -format msh41 -setnumber h 0.3 -o square.msh).
// square35.msh (36 triangles, the base mesh of tools/verify_taylor_spatial.py):
//   gmsh square.geo -2 -format msh41 -algo front2d -setnumber h 0.3
//        -setnumber Mesh.MeshSizeExtendFromBoundary 0 -setnumber Mesh.MeshSizeMax 0.35 -o square35.msh
DefineConstant[ h = {0.3, Name "h"} ];

Point(1) = {-0.5, -0.5, 0, h};
Point(2) = { 0.5, -0.5, 0, h};
Point(3) = { 0.5,  0.5, 0, h};
Point(4) = {-0.5,  0.5, 0, h};

Line(1) = {1, 2};
Line(2) = {2, 3};
Line(3) = {3, 4};
Line(4) = {4, 1};

Curve Loop(1) = {1, 2, 3, 4};
Plane Surface(1) = {1};

Physical Curve("bottom") = {1};
Physical Curve("right") = {2};
Physical Curve("top") = {3};
Physical Curve("left") = {4};
Physical Surface("fluid") = {1};
