// cylinder.geo -- the DFG benchmark channel (Schaefer & Turek 1996, "2D-1" and "2D-2"):
// the channel [0, 2.2] x [0, 0.41] with a circular cylinder of diameter 0.1 centred at
// (0.2, 0.2), a coarse unstructured mesh whose cylinder faces are curved.
// Physical curves: "inflow" (x = 0), "outflow" (x = 2.2), "walls" (y = 0 and 0.41),
// "cylinder"; physical surface "fluid".
//   gmsh cylinder.geo -2 -order 8 -format msh41 -o cylinder.msh
// (-order 8: the circle's edge nodes for every N <= 8; insdg reads orders 1..10.)
DefineConstant[ hc = {0.02, Name "hc"}, hf = {0.1, Name "hf"} ];

Point(1) = {0, 0, 0, hf};
Point(2) = {2.2, 0, 0, hf};
Point(3) = {2.2, 0.41, 0, hf};
Point(4) = {0, 0.41, 0, hf};
Point(5) = {0.2, 0.2, 0, hc};      // centre
Point(6) = {0.25, 0.2, 0, hc};
Point(7) = {0.2, 0.25, 0, hc};
Point(8) = {0.15, 0.2, 0, hc};
Point(9) = {0.2, 0.15, 0, hc};

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

// hc at the cylinder growing with distance to hf
Field[1] = Distance;
Field[1].CurvesList = {5, 6, 7, 8};
Field[1].NumPointsPerCurve = 60;
Field[2] = Threshold;
Field[2].InField = 1;
Field[2].SizeMin = hc;
Field[2].SizeMax = hf;
Field[2].DistMin = 0.0;
Field[2].DistMax = 0.4;
Background Field = 2;
Mesh.MeshSizeExtendFromBoundary = 0;
Mesh.MeshSizeFromPoints = 0;
Mesh.MeshSizeFromCurvature = 0;

Physical Curve("inflow") = {4};
Physical Curve("outflow") = {2};
Physical Curve("walls") = {1, 3};
Physical Curve("cylinder") = {5, 6, 7, 8};
Physical Surface("fluid") = {1};
