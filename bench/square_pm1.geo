// square_pm1.geo -- the square [-1, 1]^2, unstructured triangles of size lc, every side
// in physical group 1 ("wall": Dirichlet for bench_solvers --mesh and for libParanumal's
// elliptic solver, whose mesh reader takes the physical tag as the boundary code).
// The like-for-like solver comparison of docs/solvers.md (Gmsh 4.8.4):
//   gmsh -2 -format msh2 -setnumber lc 0.065 bench/square_pm1.geo -o sq_0.065.msh     (K = 2258)
//   gmsh -2 -format msh2 -setnumber lc 0.0325 bench/square_pm1.geo -o sq_0.0325.msh   (K = 8968)
DefineConstant[ lc = {0.065, Name "lc"} ];
Point(1) = {-1, -1, 0, lc}; Point(2) = {1, -1, 0, lc}; Point(3) = {1, 1, 0, lc}; Point(4) = {-1, 1, 0, lc};
Line(1) = {1, 2}; Line(2) = {2, 3}; Line(3) = {3, 4}; Line(4) = {4, 1};
Curve Loop(1) = {1, 2, 3, 4};
Plane Surface(1) = {1};
Physical Curve("wall", 1) = {1, 2, 3, 4};
Physical Surface("fluid", 9) = {1};
